/**
 * A user name or password in a model server's URL (`http://admin:secret@host/v1`) would go out as
 * Basic auth on every call, and URLs are named in messages and kept in a session's copy of its spec.
 * Keys come only from the environment. The URL as shown when it holds them — with them removed — or
 * undefined when it holds none (or does not parse: the request says so then).
 */
export function urlWithoutCredentials(url: string): string | undefined {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return undefined;
  }
  if (!target.username && !target.password) return undefined;
  target.username = '';
  target.password = '';
  return target.href;
}
