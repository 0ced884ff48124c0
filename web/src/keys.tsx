import { useEffect, useState } from 'preact/hooks';
import type { KeyRole } from '../../src/domain/keys';
import { api, query } from './api';
import type { List, Me } from './types';
import { Alert, Field, FormAlert, fieldErrorOf, when } from './ui';

interface ApiKey {
  id: string;
  name: string;
  role: KeyRole;
  project_ids: string[] | null;
  prefix: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
}

/** The organization's API keys: an organization-wide admin key lists, creates (value shown once) and revokes them. */
export function KeysPage({ me }: { me: Me }) {
  const canManage = me.key.role === 'admin' && me.key.project_ids === null;
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const load = () =>
    api
      .get<List<'keys', ApiKey>>(`/v1/keys${query({ limit: 100, order: 'created_at.desc' })}`)
      .then((list) => setKeys(list.keys))
      .catch(setError);
  useEffect(() => {
    if (canManage) void load();
  }, []);

  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      <p>
        Signed in with <strong>{me.key.name}</strong> (role <code>{me.key.role}</code>) of {me.organization.name}.
      </p>
      {!canManage ? (
        <p class="muted">Only an admin key of the whole organization can see and manage API keys.</p>
      ) : (
        <>
          <Alert error={error} />
          {secret ? (
            <p class="notice" role="status">
              New key (shown once, keep it): <code class="secret">{secret}</code>
            </p>
          ) : null}
          <CreateKey
            onCreated={(value) => {
              setSecret(value);
              void load();
            }}
          />
          {keys === null ? <p class="muted">Loading…</p> : null}
          <table class="list" aria-label="API keys">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Role</th>
                <th scope="col">Created</th>
                <th scope="col">State</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {(keys ?? []).map((key) => (
                <tr>
                  <td>{key.name}</td>
                  <td>
                    <code>{key.prefix}…</code>
                  </td>
                  <td>{key.role}</td>
                  <td>{when(key.created_at)}</td>
                  <td>{key.revoked_at ? `revoked ${when(key.revoked_at)}` : key.expires_at ? `expires ${when(key.expires_at)}` : 'active'}</td>
                  <td>
                    {key.revoked_at || key.id === me.key.id ? null : (
                      <button
                        type="button"
                        aria-label={`Revoke ${key.name} (${key.prefix}…)`}
                        onClick={() => api.del(`/v1/keys/${key.id}`).then(load, setError)}
                      >
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}

function CreateKey({ onCreated }: { onCreated: (value: string) => void }) {
  const [name, setName] = useState('');
  const [role, setRole] = useState<ApiKey['role']>('write');
  const [error, setError] = useState<unknown>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      const created = await api.post<ApiKey & { key: string }>('/v1/keys', { name: name || undefined, role });
      setName('');
      onCreated(created.key);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form class="panel" onSubmit={submit} aria-label="New API key">
      <Field label="Name" error={fieldErrorOf(error, 'name')}>
        <input name="key-name" value={name} maxLength={100} onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      <Field label="Role" error={fieldErrorOf(error, 'role')}>
        <select name="key-role" value={role} onChange={(e) => setRole(e.currentTarget.value as ApiKey['role'])}>
          <option value="read">read</option>
          <option value="write">write</option>
          <option value="admin">admin</option>
        </select>
      </Field>
      <FormAlert error={error} beside={(path) => path === 'name' || path === 'role'} />
      <button type="submit">Create key</button>
    </form>
  );
}
