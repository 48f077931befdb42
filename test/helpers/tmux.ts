import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { skipWithout } from './programs.js';

/** How often waitFor re-reads the screen: it waits for what the screen shows, this only paces the polling. */
const screenPollMs = 50;

/**
 * A real terminal for end-to-end tests: a private tmux server (its own socket), keys typed with
 * send-keys, the screen read with capture-pane — as a person would use the CLI.
 */
export class TmuxTerminal {
  private readonly socket = `acode-test-${randomBytes(4).toString('hex')}`;

  constructor(cwd: string, env: Record<string, string>, size = { columns: 120, rows: 30 }) {
    // Every terminal test starts one, so none can forget: without tmux the test skips, saying so.
    skipWithout('tmux');
    // A clean environment, as a person's terminal has: CI=true (set by CI) makes Ink print only final frames.
    const base = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', TERM: 'xterm-256color', LANG: 'C.UTF-8', ...env };
    const assignments = Object.entries(base).map(([k, v]) => `${k}='${v}'`).join(' ');
    this.tmux('new-session', '-d', '-s', 'main', '-x', String(size.columns), '-y', String(size.rows), '-c', cwd, `env -i ${assignments} bash --norc --noprofile`);
  }

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  }

  /** Types a command line and presses Enter. */
  run(command: string): void {
    this.tmux('send-keys', '-t', 'main', '-l', command);
    this.tmux('send-keys', '-t', 'main', 'Enter');
  }

  /** Presses keys by tmux name (`v`, `Escape`, `Right`). */
  press(...keys: string[]): void {
    this.tmux('send-keys', '-t', 'main', ...keys);
  }

  screen(): string {
    return this.tmux('capture-pane', '-p', '-t', 'main');
  }

  /** Lines in the pane's scrollback (history above the screen). */
  historySize(): number {
    return Number(this.tmux('display-message', '-p', '-t', 'main', '#{history_size}').trim());
  }

  /** The pane's title, as the programs in it set it (OSC 0/2). */
  title(): string {
    return this.tmux('display-message', '-p', '-t', 'main', '#{pane_title}').trim();
  }

  /** Resizes the terminal, as a person dragging its window would (the foreground job gets SIGWINCH). */
  resize(columns: number, rows: number): void {
    this.tmux('resize-window', '-t', 'main', '-x', String(columns), '-y', String(rows));
  }

  /** Whether the terminal shows its cursor (a program hides it with ESC[?25l). */
  cursorVisible(): boolean {
    return this.tmux('display-message', '-p', '-t', 'main', '#{cursor_flag}').trim() === '1';
  }

  /** The screen with its styles, as SGR escape sequences (capture-pane -e). */
  styledScreen(): string {
    return this.tmux('capture-pane', '-e', '-p', '-t', 'main');
  }

  /** Resolves with the screen once it satisfies `predicate`; fails with the last screen after `timeoutMs`. */
  async waitFor(predicate: (screen: string) => boolean, timeoutMs = 10_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.screen();
      if (predicate(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`the terminal never showed what was expected; it shows:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, screenPollMs));
    }
  }

  close(): void {
    try {
      this.tmux('kill-server');
    } catch {
      // already gone
    }
  }
}
