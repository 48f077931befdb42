/**
 * Loads a module that imports Ink. Ink's layout engine (yoga) decodes its embedded wasm through
 * fetch() whenever fetch exists, and the first touch of Node's fetch loads undici: ~25 ms of a
 * first frame. With fetch hidden while Ink loads, yoga decodes the wasm directly; fetch is put
 * back as soon as the import settles.
 */
export async function importInk<T>(load: () => Promise<T>): Promise<T> {
  const fetch = Object.getOwnPropertyDescriptor(globalThis, 'fetch');
  if (!fetch?.configurable) return load();
  Object.defineProperty(globalThis, 'fetch', { value: undefined, configurable: true, writable: true });
  try {
    return await load();
  } finally {
    Object.defineProperty(globalThis, 'fetch', fetch);
  }
}
