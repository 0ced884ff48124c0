import type { Me } from './types';

/** The public API has no key endpoints: keys are made and revoked with the admin CLI, so this page says how. */
export function KeysPage({ me }: { me: Me }) {
  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      <p>
        Signed in with <strong>{me.key.name}</strong> (role <code>{me.key.role}</code>) of {me.organization.name}.
      </p>
      <p>Keys are created (with a role, shown once) and revoked on the server with the admin CLI, which the API does not expose:</p>
      <pre>
        {`rowsmith key create --org ${me.organization.id} --role write\nrowsmith key revoke <key id>`}
      </pre>
    </section>
  );
}
