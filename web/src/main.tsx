import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, call, session } from './api';
import { TablesPage } from './tables';
import { TableView } from './table-view';
import type { Me } from './types';
import { Alert } from './ui';
import { WebhooksPage } from './webhooks';
import { KeysPage } from './keys';
import './styles.css';

function useHash(): string {
  const [hash, setHash] = useState(location.hash || '#/tables');
  useEffect(() => {
    const update = () => setHash(location.hash || '#/tables');
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return hash;
}

function SignIn({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const { body } = await call<Me>('GET', '/v1/me', undefined, {}, key.trim());
      session.key = key.trim();
      onSignedIn(body);
    } catch (err) {
      setError(
        err instanceof ApiError && err.status === 401
          ? 'This API key was refused: it is unknown, revoked or expired. Check it and try again.'
          : `Could not sign in: ${err instanceof Error ? err.message : String(err)}`,
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin">
      <h1>rowsmith</h1>
      <form onSubmit={submit} aria-describedby="signin-help">
        <label class="field">
          <span>API key</span>
          <input name="api-key" type="password" autoComplete="off" required value={key} onInput={(e) => setKey(e.currentTarget.value)} />
        </label>
        <p id="signin-help" class="muted">
          The key is kept for this browser tab only and sent to this server's API.
        </p>
        <button type="submit" disabled={busy || !key.trim()}>
          Sign in
        </button>
        {error ? <Alert>{error}</Alert> : null}
      </form>
    </main>
  );
}

function App() {
  const [me, setMe] = useState<Me | null>(null);
  const [checking, setChecking] = useState(Boolean(session.key));
  const [project, setProject] = useState<string>('');
  const hash = useHash();

  useEffect(() => {
    if (!session.key) return;
    call<Me>('GET', '/v1/me')
      .then(({ body }) => setMe(body))
      .catch(() => (session.key = null))
      .finally(() => setChecking(false));
  }, []);
  useEffect(() => {
    if (me && !project) setProject(me.projects[0]?.id ?? '');
  }, [me]);

  if (checking) return <p class="muted">Loading…</p>;
  if (!me) return <SignIn onSignedIn={setMe} />;

  const signOut = () => {
    session.key = null;
    setMe(null);
  };
  const [, section, id, tab] = hash.split('/');
  let page;
  if (section === 'webhooks') page = <WebhooksPage me={me} />;
  else if (section === 'keys') page = <KeysPage me={me} />;
  else if (section === 'tables' && id) page = <TableView key={id} project={project} tableId={id} tab={tab ?? 'rows'} />;
  else page = <TablesPage project={project} />;

  return (
    <div class="shell">
      <header>
        <a class="brand" href="#/tables">
          rowsmith
        </a>
        <nav aria-label="Main">
          <a href="#/tables" aria-current={section === 'tables' ? 'page' : undefined}>
            Tables
          </a>
          <a href="#/webhooks" aria-current={section === 'webhooks' ? 'page' : undefined}>
            Webhooks
          </a>
          <a href="#/keys" aria-current={section === 'keys' ? 'page' : undefined}>
            API keys
          </a>
        </nav>
        <label class="project">
          <span class="sr-only">Project</span>
          <select value={project} onChange={(e) => setProject(e.currentTarget.value)}>
            {me.projects.map((p) => (
              <option value={p.id}>{p.name}</option>
            ))}
          </select>
        </label>
        <span class="muted who">
          {me.key.name} ({me.key.role})
        </span>
        <button class="link" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main>{project ? page : <Alert>This key cannot see any project.</Alert>}</main>
    </div>
  );
}

render(<App />, document.getElementById('app')!);
