import { useEffect, useState } from 'preact/hooks';
import { BATCH_EVENTS, type WebhookEvent } from '../../src/domain/webhooks';
import { ApiError, api, query } from './api';
import type { Delivery, List, Me, Webhook } from './types';
import { Alert, Field, FormAlert, fieldErrorOf, when } from './ui';

interface TestResult {
  status: string;
  http_status: number | null;
  response_body: string | null;
}

export function WebhooksPage({ me }: { me: Me }) {
  const base = `/v1/organizations/${me.organization.id}/webhooks`;
  const [hooks, setHooks] = useState<Webhook[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const load = () =>
    api
      .get<List<'webhooks', Webhook>>(`${base}${query({ limit: 100 })}`)
      .then((list) => setHooks(list.webhooks))
      .catch(setError);
  useEffect(() => {
    void load();
  }, []);
  const canChange = me.key.role === 'admin';

  return (
    <section aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhooks</h2>
      <Alert error={error} />
      {secret ? (
        <p class="notice" role="status">
          Signing secret (shown once, keep it): <code class="secret">{secret}</code>
        </p>
      ) : null}
      {canChange ? (
        <CreateWebhook
          base={base}
          onCreated={(hook) => {
            setSecret(hook.secret ?? null);
            void load();
          }}
        />
      ) : (
        <p class="muted">Only an admin key can create, change or test webhooks.</p>
      )}
      {hooks === null ? <p class="muted">Loading…</p> : hooks.length === 0 ? <p class="muted">No webhooks yet.</p> : null}
      <ul class="cards">
        {(hooks ?? []).map((hook) => (
          <WebhookCard base={base} hook={hook} canChange={canChange} onChanged={load} />
        ))}
      </ul>
    </section>
  );
}

function CreateWebhook({ base, onCreated }: { base: string; onCreated: (hook: Webhook) => void }) {
  const [name, setName] = useState('');
  const [url, setUrl] = useState('https://');
  const [events, setEvents] = useState<WebhookEvent[]>([...BATCH_EVENTS]);
  const [error, setError] = useState<unknown>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      const hook = await api.post<Webhook>(base, { name: name || undefined, url, events });
      setName('');
      setUrl('https://');
      onCreated(hook);
    } catch (err) {
      setError(err);
    }
  };
  const fieldError = (path: string) => fieldErrorOf(error, path);
  const eventsError = fieldError('events') ?? (error instanceof ApiError ? Object.keys(error.fields).filter((p) => p.startsWith('events[')).map((p) => error.fieldMessage(p))[0] : undefined);
  return (
    <form class="panel" onSubmit={submit} aria-label="New webhook">
      <Field label="Name" error={fieldError('name')}>
        <input name="webhook-name" value={name} maxLength={64} onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      <Field label="URL (https)" error={fieldError('url')}>
        <input name="webhook-url" type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
      </Field>
      <fieldset>
        <legend>Events</legend>
        {BATCH_EVENTS.map((name) => (
          <label class="check">
            <input
              type="checkbox"
              checked={events.includes(name)}
              onChange={(e) => setEvents(e.currentTarget.checked ? [...events, name] : events.filter((x) => x !== name))}
            />{' '}
            {name}
          </label>
        ))}
        {eventsError ? (
          <small class="field-error" role="alert">
            {eventsError}
          </small>
        ) : null}
      </fieldset>
      <FormAlert error={error} beside={(path) => path === 'name' || path === 'url' || path === 'events' || path.startsWith('events[')} />
      <button type="submit">Create webhook</button>
    </form>
  );
}

function WebhookCard({ base, hook, canChange, onChanged }: { base: string; hook: Webhook; canChange: boolean; onChanged: () => void }) {
  const [result, setResult] = useState<TestResult | null>(null);
  const [deliveries, setDeliveries] = useState<Delivery[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [testing, setTesting] = useState(false);
  const path = `${base}/${hook.id}`;
  const label = hook.name ?? hook.url;

  const test = async () => {
    setTesting(true);
    setError(null);
    try {
      setResult(await api.post<TestResult>(`${path}/test`));
      await loadDeliveries();
    } catch (err) {
      setError(err);
    } finally {
      setTesting(false);
    }
  };
  const loadDeliveries = () =>
    api
      .get<List<'deliveries', Delivery>>(`${path}/deliveries${query({ limit: 20 })}`)
      .then((list) => setDeliveries(list.deliveries))
      .catch(setError);
  const toggle = () => api.patch(path, { active: !hook.active }).then(onChanged, setError);
  const remove = () => api.del(path).then(onChanged, setError);

  return (
    <li class="card" aria-label={`Webhook ${label}`}>
      <h3>{label}</h3>
      <p>
        <code>{hook.url}</code> · {hook.events.join(', ')} · {hook.active ? 'active' : 'paused'} · {hook.failure_count} failures
      </p>
      <div class="actions">
        {canChange ? (
          <>
            <button onClick={test} disabled={testing} aria-label={`Send a test to ${label}`}>
              {testing ? 'Sending…' : 'Send test'}
            </button>
            <button class="link" onClick={toggle}>
              {hook.active ? 'Pause' : 'Resume'}
            </button>
            <button class="link danger" onClick={remove} aria-label={`Delete webhook ${label}`}>
              Delete
            </button>
          </>
        ) : null}
        <button class="link" onClick={loadDeliveries}>
          Deliveries
        </button>
      </div>
      {result ? (
        <p class={result.status === 'success' ? 'notice' : 'alert'} role="status" data-test-result={result.status}>
          Test {result.status}
          {result.http_status !== null ? ` (HTTP ${result.http_status})` : ''}
          {result.response_body ? `: ${result.response_body}` : ''}
        </p>
      ) : null}
      <Alert error={error} />
      {deliveries ? (
        deliveries.length === 0 ? (
          <p class="muted">No deliveries yet.</p>
        ) : (
          <table class="list" aria-label={`Deliveries of ${label}`}>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">HTTP</th>
                <th scope="col">Attempt</th>
                <th scope="col">When</th>
                <th scope="col">Response</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.map((d) => (
                <tr>
                  <td>{d.event}</td>
                  <td>{d.status}</td>
                  <td class="num">{d.http_status ?? ''}</td>
                  <td class="num">{d.attempt}</td>
                  <td>{when(d.created_at)}</td>
                  <td class="truncate">{d.response_body ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      ) : null}
    </li>
  );
}
