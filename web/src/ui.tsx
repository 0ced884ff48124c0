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
