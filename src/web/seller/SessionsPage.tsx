/**
 * The seller console's sessions page: every open session of the signed-in payout wallet (the device it was
 * opened on, when, until when; "This browser" marks the current one), each with "End session", and "End all
 * other sessions". Ending the current one signs this browser out.
 */
import { useCallback, useEffect, useState } from 'react';
import type { SellerSession } from '../../core/seller-api';
import { sellerApi } from './api';
import { message, when } from './labels';
import './sessions-page.css';

export function SessionsPage(props: { onSignedOut: () => void }) {
  const [sessions, setSessions] = useState<SellerSession[] | null>(null);
  const [error, setError] = useState('');
  const [notice, setNotice] = useState('');

  const load = useCallback(async () => {
    try {
      setSessions((await sellerApi.sessions()).sessions);
      setError('');
    } catch (err) {
      setError(message(err));
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  const end = async (s: SellerSession) => {
    try {
      await sellerApi.endSession(s.id);
      if (s.current) return props.onSignedOut();
      setNotice(`Ended the session on ${s.device ?? 'an unknown browser'}.`);
      await load();
    } catch (err) {
      setError(message(err));
    }
  };
  const endOthers = async () => {
    try {
      const { ended } = await sellerApi.endOtherSessions();
      setNotice(ended === 1 ? 'Ended 1 other session.' : `Ended ${ended} other sessions.`);
      await load();
    } catch (err) {
      setError(message(err));
    }
  };

  return (
    <section aria-labelledby="sessions-title">
      <h2 id="sessions-title">Sessions</h2>
      <p>Where this payout wallet is signed in to the console. End any session you do not recognise.</p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {notice && <p role="status">{notice}</p>}
      {sessions === null ? (
        !error && <p>Loading…</p>
      ) : (
        <>
          <table className="seller-sessions">
            <thead>
              <tr>
                <th scope="col">Device</th>
                <th scope="col">Signed in</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span className="visually-hidden">Action</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {sessions.map((s) => (
                <tr key={s.id}>
                  <td>
                    {s.device ?? 'Unknown browser'}
                    {s.current && <strong> (this browser)</strong>}
                  </td>
                  <td data-label="Signed in">{when(s.createdAt)}</td>
                  <td data-label="Expires">{when(s.expiresAt)}</td>
                  <td>
                    <button type="button" className="button" onClick={() => void end(s)}>
                      {s.current ? 'Sign out here' : 'End session'}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {sessions.some((s) => !s.current) && (
            <p>
              <button type="button" className="button" onClick={() => void endOthers()}>
                End all other sessions
              </button>
            </p>
          )}
        </>
      )}
    </section>
  );
}
