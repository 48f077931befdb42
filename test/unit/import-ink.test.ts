import { describe, expect, it } from 'vitest';
import { importInk } from '../../source/commands/import-ink.js';

describe('loading Ink', () => {
  it('hides fetch only while the import runs, then gives the very same fetch back', async () => {
    const before = Object.getOwnPropertyDescriptor(globalThis, 'fetch');
    let during: unknown = 'not called';
    const loaded = await importInk(async () => {
      during = globalThis.fetch;
      return import('ink');
    });
    expect(during).toBeUndefined();
    expect(typeof loaded.render).toBe('function');
    expect(Object.getOwnPropertyDescriptor(globalThis, 'fetch')).toEqual(before);
    expect(typeof globalThis.fetch).toBe('function');
  });

  it('gives fetch back when the import fails', async () => {
    await expect(importInk(() => Promise.reject(new Error('no such module')))).rejects.toThrow('no such module');
    expect(typeof globalThis.fetch).toBe('function');
  });
});
