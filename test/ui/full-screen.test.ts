import { afterEach, describe, expect, it } from 'vitest';
import { createSessionSource } from '../../source/commands/browser-source.js';
import { createBrowserStore } from '../../source/state/browser-store.js';
import { enterFullScreen, type FullScreen } from '../../source/ui/browser/full-screen.js';
import { generatedStore } from '../helpers/browser-fixture.js';
import { fakeTerminal as terminal } from '../helpers/fake-terminal.js';

let screen: FullScreen | undefined;
afterEach(() => screen?.restore());

describe('the full screen the browser holds from its first frame', () => {
  it('paints the first frame on the alternate screen at once, in raw mode, and gives the terminal back', async () => {
    const fixture = generatedStore(30);
    const store = createBrowserStore(await createSessionSource(fixture.ctx), fixture.cwd);
    const { stdout, stdin } = terminal(110, 30);
    const signals = process.listenerCount('SIGTERM');
    screen = enterFullScreen(store, stdout as never, stdin as never);
    expect(stdout.written().startsWith('\u001B[?1049h')).toBe(true);
    expect(stdout.written()).toContain('30 sessions');
    expect(stdout.written().endsWith('\u001B[H')).toBe(true); // Ink starts its frame at the top-left corner
    expect(store.getState().pageSize).toBe(30 - 12);
    expect(stdin.raw).toBe(true);

    screen.handOver();
    expect(stdout.written()).not.toContain('\u001B[2J'); // the same size: Ink's frame lands on the painted one
    // A signal from outside (raw mode turns Ctrl+C into a key) closes the browser.
    expect(process.listenerCount('SIGTERM')).toBe(signals + 1);
    process.listeners('SIGINT').at(-1)!('SIGINT');
    expect(store.getState().quit).toBe(true);

    screen.restore();
    expect(stdout.written().endsWith('\u001B[?1049l\u001B[?25h')).toBe(true);
    expect(stdin.raw).toBe(false);
    expect(process.listenerCount('SIGTERM')).toBe(signals);
  });

  it('clears the painted frame before Ink draws when the terminal was resized meanwhile', async () => {
    const fixture = generatedStore(10);
    const store = createBrowserStore(await createSessionSource(fixture.ctx), fixture.cwd);
    const { stdout, stdin } = terminal(110, 30);
    screen = enterFullScreen(store, stdout as never, stdin as never);
    stdout.rows = 24;
    screen.handOver();
    expect(stdout.written().endsWith('\u001B[2J\u001B[H')).toBe(true);
  });
});
