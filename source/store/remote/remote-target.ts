import { AcodeError, ExitCode } from '../../errors/acode-error.js';
import { redact, secrets } from '../../secrets/redactor.js';

/** Where the team store is: its URL (held in memory only) and how it may be named in messages. */
export interface RemoteTarget {
  /** The postgres:// URL, password included: handed to the client, never written or printed. */
  readonly url: string;
  /** The URL without user name or password (`postgres://db.example:5432/acode`), for messages. */
  readonly shown: string;
  /** The environment variable it was read from. */
  readonly variable: string;
  /** `remote.statement_timeout_seconds`, in ms: a statement unanswered that long counts as the store being unreachable. */
  readonly statementTimeoutMs: number;
  /** Text with the URL's password taken out (whatever its length), then redacted as every printed line. */
  scrub(text: string): string;
}

/**
 * The target a URL names (read from `variable`), its password registered with the redactor as a
 * provider's key is; an AcodeError (exit 2) for a URL that is not a postgres:// one, without quoting it.
 */
export function parseRemoteTarget(variable: string, url: string, statementTimeoutMs: number): RemoteTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not even the URL goes in the message: it may be a password pasted in the wrong place.
    throw new AcodeError(`${variable} is not a URL; set it to postgres://user:password@host:5432/database`, ExitCode.usage);
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new AcodeError(`${variable} must be a postgres:// URL (it is ${parsed.protocol}//…); set it to postgres://user:password@host:5432/database`, ExitCode.usage);
  }
  const password = decodeURIComponent(parsed.password);
  secrets.register(password || undefined);
  secrets.register(parsed.password || undefined);
  const forms = [...new Set([password, parsed.password].filter((form) => form.length >= 4))];
  const shownUrl = new URL(url);
  shownUrl.username = '';
  shownUrl.password = '';
  shownUrl.search = '';
  return {
    url,
    shown: shownUrl.href,
    variable,
    statementTimeoutMs,
    scrub: (text) => redact(forms.reduce((clean, form) => clean.split(form).join('[REDACTED]'), text)),
  };
}

