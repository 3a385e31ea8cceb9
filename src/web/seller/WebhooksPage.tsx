/**
 * The seller console's webhooks section (issue 35; docs/webhooks.md): the vendor's endpoints — add one (its
 * https address, the events it wants, whether events carry the buyer's name and address), see its signing secret
 * once, rotate it, pause and resume, delete, send a test event — and each endpoint's delivery log (event, status,
 * attempts, the last answer and its time) with "Resend", and a plain-words note when an endpoint is failing. The
 * secret lives only in this component's state until the vendor closes the notice; no list ever carries it.
 */
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import type { SellerMe } from '../../core/seller-api';
import type { WebhookDeliveryView, WebhookEndpointView } from '../../core/webhook-api';
import { WEBHOOK_EVENT_LABELS, WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../core/webhook-events';
import { message, when } from './labels';
import { webhooksApi } from './webhooks-api';
import './webhooks-page.css';

const DELIVERY_STATE: Record<WebhookDeliveryView['state'], string> = {
  pending: 'Waiting',
  retrying: 'Retrying',
  delivered: 'Delivered',
  failed: 'Failed',
};

function eventLabel(type: string): string {
  return type === 'webhook.test' ? 'Test event' : (WEBHOOK_EVENT_LABELS[type as WebhookEventType] ?? type);
}

function stateLabel(e: WebhookEndpointView): string {
  if (e.state === 'active') return 'Active';
  if (e.state === 'disabled') return 'Disabled';
  return e.stateReason === 'failing' ? 'Paused (failing)' : 'Paused';
}

/** The plain-words note of an endpoint that is not working, or undefined. */
function trouble(e: WebhookEndpointView): string | undefined {
  if (e.state === 'disabled' && e.stateReason === 'gone')
    return 'Your endpoint answered “410 Gone”, so nothing more is sent to it. Resume it when it should receive events again.';
  if (e.state === 'paused' && e.stateReason === 'failing')
    return 'Your endpoint accepted no event for three days, so we paused it and e-mailed you. Fix the receiver, then press Resume: the events waiting are sent then.';
  if (e.failingSince)
    return `Your endpoint has not accepted an event since ${when(e.failingSince)}. We keep retrying for three days; check that it answers with a 2xx status.`;
  return undefined;
}

function Secret(props: { secret: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="webhook-secret" role="status">
      <p>
        <strong>Signing secret.</strong> Copy it into your receiver now: it is not shown again.
      </p>
      <p>
        <code data-testid="webhook-secret">{props.secret}</code>
      </p>
      <p>
        <button
          type="button"
          className="button"
          onClick={() => {
            void navigator.clipboard?.writeText(props.secret).then(() => setCopied(true));
          }}
        >
          {copied ? 'Copied' : 'Copy secret'}
        </button>{' '}
        <button type="button" className="button secondary" onClick={props.onDone}>
          I have saved it
        </button>
      </p>
    </div>
  );
}

function Deliveries(props: { endpoint: WebhookEndpointView }) {
  const [rows, setRows] = useState<WebhookDeliveryView[] | null>(null);
  const [error, setError] = useState('');
  const [notice, setNotice] = useState('');
  const load = useCallback(async () => {
    try {
      setRows((await webhooksApi.deliveries(props.endpoint.id)).deliveries);
      setError('');
    } catch (err) {
      setError(message(err));
    }
  }, [props.endpoint.id]);
  useEffect(() => {
    void load();
  }, [load]);
  const resend = async (d: WebhookDeliveryView) => {
    try {
      await webhooksApi.resend(props.endpoint.id, d.id);
      setNotice(`“${eventLabel(d.eventType)}” will be sent again.`);
      await load();
    } catch (err) {
      setError(message(err));
    }
  };
  return (
    <div className="webhook-deliveries">
      <h4>Deliveries</h4>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {notice && <p role="status">{notice}</p>}
      <p>
        <button type="button" className="button secondary" onClick={() => void load()}>
          Refresh
        </button>
      </p>
      {rows === null ? (
        !error && <p>Loading…</p>
      ) : rows.length === 0 ? (
        <p>No events yet.</p>
      ) : (
        <table className="webhook-log">
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last answer</th>
              <th scope="col">
                <span className="visually-hidden">Action</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((d) => (
              <tr key={d.id}>
                <td>
                  {eventLabel(d.eventType)}
                  <br />
                  <small>{when(d.createdAt)}</small>
                </td>
                <td data-label="Status">{DELIVERY_STATE[d.state]}</td>
                <td data-label="Attempts">{d.attempts}</td>
                <td data-label="Last answer">
                  {d.lastAttemptAt === null
                    ? 'Not sent yet'
                    : `${d.lastStatus !== null ? `HTTP ${d.lastStatus}` : (d.lastError ?? 'No answer')} · ${when(d.lastAttemptAt)}`}
                </td>
                <td>
                  <button
                    type="button"
                    className="button small"
                    aria-label={`Resend ${eventLabel(d.eventType)} of ${when(d.createdAt)}`}
                    onClick={() => void resend(d)}
                  >
                    Resend
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function Endpoint(props: {
  endpoint: WebhookEndpointView;
  vendorName?: string;
  onChanged: () => Promise<void>;
  onSecret: (secret: string) => void;
}) {
  const e = props.endpoint;
  const [open, setOpen] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [error, setError] = useState('');
  const [notice, setNotice] = useState('');
  const run = async (what: () => Promise<unknown>, done: string) => {
    setError('');
    try {
      await what();
      setNotice(done);
      await props.onChanged();
    } catch (err) {
      setError(message(err));
    }
  };
  const note = trouble(e);
  const paused = e.state !== 'active';
  return (
    <li className="webhook-endpoint">
      <h3>
        <span className="webhook-url">{e.url}</span>
      </h3>
      <p>
        <span className={`badge webhook-state-${e.state}`}>{stateLabel(e)}</span>
        {props.vendorName && <> · {props.vendorName}</>} ·{' '}
        {e.events.includes('*') ? 'All events' : e.events.map(eventLabel).join(', ')} ·{' '}
        {e.includeShipping ? 'with the buyer’s name and address' : 'without the buyer’s address'}
        {e.waiting > 0 && <> · {e.waiting} waiting</>}
      </p>
      {note && (
        <p className="webhook-trouble" role="note">
          {note}
        </p>
      )}
      {e.previousSecretUntil && <p>The previous secret still signs until {when(e.previousSecretUntil)}.</p>}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {notice && <p role="status">{notice}</p>}
      <div className="webhook-actions">
        <button
          type="button"
          className="button"
          onClick={() => void run(() => webhooksApi.test(e.id), 'A test event is on its way.')}
        >
          Send test event
        </button>
        <button
          type="button"
          className="button secondary"
          onClick={() =>
            void run(
              () => webhooksApi.update(e.id, { paused: !paused }),
              paused ? 'Resumed: waiting events are being sent.' : 'Paused: events wait until you resume.',
            )
          }
        >
          {paused ? 'Resume' : 'Pause'}
        </button>
        <button
          type="button"
          className="button secondary"
          onClick={() =>
            void run(async () => {
              const r = await webhooksApi.update(e.id, { rotateSecret: true });
              if ('secret' in r) props.onSecret(r.secret);
            }, 'New secret made: the old one keeps signing for a day.')
          }
        >
          Rotate secret
        </button>
        <button
          type="button"
          className="button secondary"
          aria-expanded={open}
          onClick={() => setOpen(!open)}
        >
          {open ? 'Hide deliveries' : 'Show deliveries'}
        </button>
        {confirmDelete ? (
          <>
            <button
              type="button"
              className="button"
              onClick={() => void run(() => webhooksApi.remove(e.id), 'Endpoint deleted.')}
            >
              Delete for good
            </button>
            <button type="button" className="button secondary" onClick={() => setConfirmDelete(false)}>
              Keep it
            </button>
          </>
        ) : (
          <button type="button" className="button secondary" onClick={() => setConfirmDelete(true)}>
            Delete
          </button>
        )}
      </div>
      {open && <Deliveries endpoint={e} />}
    </li>
  );
}

export function WebhooksPage(props: { me: SellerMe }) {
  const vendors = props.me.vendors;
  const [endpoints, setEndpoints] = useState<WebhookEndpointView[] | null>(null);
  const [error, setError] = useState('');
  const [secret, setSecret] = useState('');
  const [url, setUrl] = useState('');
  const [all, setAll] = useState(true);
  const [events, setEvents] = useState<WebhookEventType[]>([]);
  const [includeShipping, setIncludeShipping] = useState(true);
  const [vendorId, setVendorId] = useState(vendors[0]?.id ?? '');
  const [formError, setFormError] = useState('');
  const [busy, setBusy] = useState(false);

  const load = useCallback(async () => {
    try {
      setEndpoints((await webhooksApi.list()).endpoints);
      setError('');
    } catch (err) {
      setError(message(err));
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  const add = async (ev: FormEvent) => {
    ev.preventDefault();
    setFormError('');
    if (!all && events.length === 0) return setFormError('Choose at least one event, or all events.');
    setBusy(true);
    try {
      const created = await webhooksApi.create({
        url: url.trim(),
        ...(all ? {} : { events }),
        includeShipping,
        ...(vendors.length > 1 ? { vendorId } : {}),
      });
      setSecret(created.secret);
      setUrl('');
      await load();
    } catch (err) {
      setFormError(message(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="webhooks-title" className="webhooks-page">
      <h2 id="webhooks-title">Webhooks</h2>
      <p>
        Send your orders’ events to your own tools (a bot, a spreadsheet, a label printer): a signed HTTPS
        request per event, in the Standard Webhooks format, retried for three days until your endpoint accepts
        it.
      </p>
      {secret && <Secret secret={secret} onDone={() => setSecret('')} />}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {endpoints === null ? (
        !error && <p>Loading…</p>
      ) : endpoints.length === 0 ? (
        <p>No endpoints yet.</p>
      ) : (
        <ul className="webhook-endpoints">
          {endpoints.map((e) => (
            <Endpoint
              key={e.id}
              endpoint={e}
              {...(vendors.length > 1
                ? { vendorName: vendors.find((v) => v.id === e.vendorId)?.name ?? e.vendorId }
                : {})}
              onChanged={load}
              onSecret={setSecret}
            />
          ))}
        </ul>
      )}
      <form className="webhook-add" onSubmit={(ev) => void add(ev)} noValidate>
        <h3>Add an endpoint</h3>
        <p>
          <label htmlFor="webhook-url">Endpoint URL</label>
          <input
            id="webhook-url"
            type="url"
            inputMode="url"
            autoComplete="off"
            placeholder="https://example.com/webhooks/claim"
            value={url}
            onChange={(ev) => setUrl(ev.target.value)}
            aria-invalid={formError ? true : undefined}
            aria-describedby={formError ? 'webhook-form-error' : undefined}
            required
          />
        </p>
        {vendors.length > 1 && (
          <p>
            <label htmlFor="webhook-vendor">Shop</label>
            <select id="webhook-vendor" value={vendorId} onChange={(ev) => setVendorId(ev.target.value)}>
              {vendors.map((v) => (
                <option key={v.id} value={v.id}>
                  {v.name}
                </option>
              ))}
            </select>
          </p>
        )}
        <fieldset>
          <legend>Events</legend>
          <label className="webhook-check">
            <input type="checkbox" checked={all} onChange={(ev) => setAll(ev.target.checked)} /> All events
          </label>
          {!all &&
            WEBHOOK_EVENT_TYPES.map((t) => (
              <label key={t} className="webhook-check">
                <input
                  type="checkbox"
                  checked={events.includes(t)}
                  onChange={(ev) =>
                    setEvents(ev.target.checked ? [...events, t] : events.filter((x) => x !== t))
                  }
                />{' '}
                {WEBHOOK_EVENT_LABELS[t]}
              </label>
            ))}
        </fieldset>
        <label className="webhook-check">
          <input
            type="checkbox"
            checked={includeShipping}
            onChange={(ev) => setIncludeShipping(ev.target.checked)}
          />{' '}
          Include the buyer’s name and shipping address
        </label>
        {formError && (
          <p className="error" role="alert" id="webhook-form-error">
            {formError}
          </p>
        )}
        <p>
          <button type="submit" className="button" disabled={busy}>
            Add endpoint
          </button>
        </p>
      </form>
    </section>
  );
}
