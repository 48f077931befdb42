import type { EngineEvent } from '../engine/events.js';
import type { StepId } from '../engine/step-id.js';
import type { StepNotice } from '../engine/step-notice.js';
import { redact } from '../secrets/redactor.js';

/** A line longer than this is written up to its last space rather than held whole. */
const softLineChars = 80;
/** Words after which a credential may follow: never cut there, so that the shape is redacted whole. */
const credentialLead = /(?:bearer|basic|token|authorization|api[-_]?key|x-api-key)["']?\s*[:=]?\s*$/i;

/** A line without a space held past this is cut anyway, where no secret straddles the cut (see spaceless). */
export const maxHeldChars = 8 * 1024;
/** What a cut without a space keeps back: a secret that begins before the cut shows whole within it. */
const heldTail = 512;

/**
 * Text written as it arrives, but only in whole pieces that can be redacted: whole lines, or a long
 * line up to a space (a key has no space in it, and a registered key is redacted in any 8-character
 * piece), or past maxHeldChars a cut where no secret straddles it. What is held is at most
 * maxHeldChars (and a delta): an answer of 64 KiB pieces without a break once held them all, ~900 MB.
 */
class RedactingWriter {
  private pending = '';
  private endsLine = true;

  constructor(private readonly write: (text: string) => void) {}

  push(text: string): void {
    this.pending += text;
    let cut = this.pending.lastIndexOf('\n') + 1;
    if (cut === 0 && this.pending.length >= softLineChars) {
      // Only the end is searched: each delta would otherwise scan everything held again.
      const from = Math.max(0, this.pending.length - maxHeldChars);
      const space = safeCut(this.pending.slice(from));
      if (space > 0) cut = from + space;
    }
    if (cut === 0 && this.pending.length >= maxHeldChars) return this.spaceless();
    if (cut > 0) this.out(this.pending.slice(0, cut));
    this.pending = this.pending.slice(cut);
  }

  /**
   * A long run without a space or line break: cut it heldTail before its end where no secret
   * (registered, or a credential's shape) straddles the cut. Where one does at every tried cut,
   * everything is written redacted. Most text holds no secret: redacted whole, it is unchanged and
   * cut as it is, each character redacted once (an endless answer of 64 KiB pieces was redacted
   * three times over, whole, head and tail, and took 15 s to reach its 64 MiB limit).
   */
  private spaceless(): void {
    const pending = this.pending;
    const whole = redact(pending);
    const last = pending.length - heldTail;
    if (whole === pending) return this.keep(pending.slice(0, last), last);
    for (let cut = last, tries = 0; cut >= heldTail && tries < 4; cut -= heldTail, tries++) {
      if (!straddled(pending, cut)) return this.keep(redact(pending.slice(0, cut)), cut);
    }
    this.emit(whole);
    this.pending = '';
  }

  /** Writes `head` (what is held up to `cut`, redacted) and holds the rest. */
  private keep(head: string, cut: number): void {
    this.emit(head);
    this.pending = this.pending.slice(cut);
  }

  /** Writes what is held and ends the line. */
  end(): void {
    if (this.pending) this.out(this.pending);
    this.pending = '';
    if (!this.endsLine) this.out('\n');
  }

  private out(text: string): void {
    this.emit(redact(text));
  }

  private emit(clean: string): void {
    if (!clean) return;
    this.write(clean);
    this.endsLine = clean.endsWith('\n');
  }
}

/**
 * Whether a secret lies across `cut` in `text`: redacting the two sides apart gives other text than
 * redacting them together. Judged on the maxHeldChars before the cut and what follows — as far back
 * as a line is ever held whole, so a credential longer than that could not be seen whole anyway.
 */
function straddled(text: string, cut: number): boolean {
  const from = Math.max(0, cut - maxHeldChars);
  const near = text.slice(from);
  return redact(near.slice(0, cut - from)) + redact(near.slice(cut - from)) !== redact(near);
}

/** The last space at which `text` may be cut: not right after a word a credential follows. */
function safeCut(text: string): number {
  const before = (end: number) => Math.max(text.lastIndexOf(' ', end), text.lastIndexOf('\t', end));
  for (let at = before(text.length - 1); at > 0; at = before(at - 1)) {
    if (!credentialLead.test(text.slice(0, at))) return at + 1;
  }
  return 0;
}

interface Held {
  attempt: number;
  text: string;
  /** Its attempt completed: once written, the next one's turn comes. */
  whole: boolean;
}

/**
 * `--stream` without a terminal: each step's answer on stdout as it arrives. With steps running at
 * once, one writes live and the others' text waits, whole, for their turn (in the order they began
 * to speak), so answers never interleave. An attempt cut short shows what it had said only if it was
 * the one writing (its line is ended; the retry's text follows) — a waiting one's text is dropped.
 */
export class StreamPrinter {
  private live: { step: StepId; attempt: number; writer: RedactingWriter } | null = null;
  private readonly waiting = new Map<StepId, Held>();

  /** `header`: the line above each step's answer (`── step 2/3 writer ──`), so a reader of the pipe knows whose text follows. */
  constructor(
    private readonly write: (text: string) => void,
    private readonly header?: (step: StepId, attempt: number) => string,
  ) {}

  notice(notice: StepNotice): void {
    const text = notice.type === 'step_text' ? notice.text : '\n';
    if (this.live?.step === notice.step && this.live.attempt === notice.attempt) return this.live.writer.push(text);
    if (!this.live && this.waiting.size === 0) return this.begin(notice.step, notice.attempt, text);
    const held = this.waiting.get(notice.step);
    if (held && held.attempt === notice.attempt) held.text += text;
    else this.waiting.set(notice.step, { attempt: notice.attempt, text, whole: false });
    if (!this.live) this.next();
  }

  event(event: EngineEvent): void {
    if (event.type === 'step_completed') {
      if (this.live?.step === event.step) return this.finishLive();
      const held = this.waiting.get(event.step);
      // An answer that arrived whole, nothing of it streamed (a server that answered one JSON body,
      // a scripted model without latency), is printed as its step completes — a person's approval is not an answer.
      if (!(held && held.attempt === event.attempt) && event.agent !== 'approval' && event.response !== '') {
        this.notice({ type: 'step_text', step: event.step, attempt: event.attempt, text: event.response });
        if (this.live?.step === event.step) return this.finishLive();
      }
      return this.markWhole(event.step, event.attempt);
    }
    // The attempt that spoke is over without an answer (or another begins): what waited of it goes.
    if (event.type === 'step_started' || event.type === 'step_failed' || event.type === 'resume_attempt') {
      if (this.live?.step === event.step) return this.finishLive();
      this.waiting.delete(event.step);
    }
  }

  /** The run ended: whatever is held of the live step is written, its line ended. */
  end(): void {
    this.live?.writer.end();
    this.live = null;
  }

  private markWhole(step: StepId, attempt: number): void {
    const held = this.waiting.get(step);
    if (held && held.attempt === attempt) held.whole = true;
  }

  private begin(step: StepId, attempt: number, text: string): void {
    if (this.header) this.write(`${redact(this.header(step, attempt))}\n`);
    this.live = { step, attempt, writer: new RedactingWriter(this.write) };
    this.live.writer.push(text);
  }

  private finishLive(): void {
    this.end();
    this.next();
  }

  /** The step that began to speak first writes next: what it said so far at once, the rest live. */
  private next(): void {
    for (const [step, held] of this.waiting) {
      this.waiting.delete(step);
      this.begin(step, held.attempt, held.text);
      if (!held.whole) return;
      this.end();
    }
  }
}
