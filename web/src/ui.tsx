import type { ComponentChildren } from 'preact';
import { ApiError } from './api';

export function when(ms: number | null): string {
  return ms === null ? 'never' : new Date(ms).toLocaleString();
}

export function errorText(error: unknown): string {
  if (error instanceof ApiError) {
    const fields = Object.entries(error.fields).map(([path, list]) => `${path}: ${list[0]?.message ?? ''}`);
    return fields.length ? fields.join('; ') : error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

export function Alert({ error, children }: { error?: unknown; children?: ComponentChildren }) {
  if (!error && !children) return null;
  return (
    <p class="alert" role="alert">
      {error ? errorText(error) : null}
      {children}
    </p>
  );
}

/** The field message of a 400 for one path, to show beside its input. */
export function fieldErrorOf(error: unknown, path: string): string | undefined {
  return error instanceof ApiError ? error.fieldMessage(path) : undefined;
}

/**
 * A form's banner when its fields show their own errors: the messages of paths no input shows
 * (`beside` says which it does) stay here, and a count points to the ones beside their inputs.
 */
export function FormAlert({ error, beside }: { error: unknown; beside: (path: string) => boolean }) {
  if (!error) return null;
  if (!(error instanceof ApiError) || !Object.keys(error.fields).length) return <Alert error={error} />;
  const paths = Object.keys(error.fields);
  const placed = paths.filter(beside);
  const rest = paths.filter((path) => !beside(path)).map((path) => `${path}: ${error.fieldMessage(path) ?? ''}`);
  return (
    <p class="alert" role="alert">
      {placed.length ? `Not saved: ${placed.length === 1 ? 'a field needs' : `${placed.length} fields need`} a fix (see the message beside it).` : 'Not saved.'}
      {rest.length ? ` ${rest.join('; ')}` : ''}
    </p>
  );
}

export function Field({ label, error, children, hint }: { label: string; error?: string; hint?: string; children: ComponentChildren }) {
  return (
    <label class="field">
      <span>{label}</span>
      {children}
      {hint ? <small>{hint}</small> : null}
      {error ? (
        <small class="field-error" role="alert">
          {error}
        </small>
      ) : null}
    </label>
  );
}

export function navigate(hash: string) {
  location.hash = hash;
}
