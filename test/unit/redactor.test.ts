import { describe, expect, it } from 'vitest';
import { minSecretLength, publicPrefix, redactedMark, Redactor } from '../../source/secrets/redactor.js';
import { leakedPieces } from '../helpers/header-echo.js';

const key = 'sk-canary-Q7vX2mLp9RzT4wKd8NfB3hYc6JsE';

function redactorWith(...values: string[]): Redactor {
  const redactor = new Redactor();
  for (const value of values) redactor.register(value);
  return redactor;
}

describe('the redactor', () => {
  it('replaces a registered key wherever it appears, keeping the text around it', () => {
    const text = redactorWith(key).redact(`the key ${key} was refused`);
    expect(text).toBe(`the key ${redactedMark} was refused`);
  });

  it('replaces every repetition of a key', () => {
    const text = redactorWith(key).redact(`${key} and ${key}, again ${key}${key}`);
    expect(leakedPieces(text, key)).toEqual([]);
    expect(text).toBe(`${redactedMark} and ${redactedMark}, again ${redactedMark}`);
  });

  it('replaces a key split over two lines: each piece of 8 or more characters goes', () => {
    const text = redactorWith(key).redact(`Authorization header was\n  ${key.slice(0, 17)}\n  ${key.slice(17)}\n(wrapped)`);
    expect(leakedPieces(text, key)).toEqual([]);
    expect(text).toContain('(wrapped)');
  });

  it('replaces a key hidden between characters a printer removes: a BEL, colour codes, a carriage return, a bidirectional mark', () => {
    const redactor = redactorWith(key);
    const pieces = key.match(/.{1,5}/g)!;
    for (const between of ['\u0007', '\u001b[0m', '\r', '\u001b]2;x\u0007', '\u202e']) {
      const text = redactor.redact(`Incorrect API key provided: ${pieces.join(between)} (check it)`);
      // Printed, the characters between go: what is left must hold no piece of the key.
      const printed = text.replace(/\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?)|[\u0000-\u001f\u202e]/g, '');
      expect(leakedPieces(printed, key), JSON.stringify(between)).toEqual([]);
      expect(text).toContain('(check it)');
      expect(redactor.redactKnown(`${pieces.join(between)} in code`)).toBe(`${redactedMark} in code`);
    }
    // An unregistered key's shape, coloured piece by piece, as a colouring log formatter writes it.
    expect(new Redactor().redact('key: sk-\u001b[1mAbCdEfGh\u001b[0m12345678XyZ\u001b[0m')).toBe(`key: ${redactedMark}`);
  });

  it('changes only the line a hidden key is on: the other lines keep their breaks, tabs and colours', () => {
    const pieces = key.match(/.{1,5}/g)!;
    const answer = `Here is the fix:\n\n\`\`\`python\ndef main():\n\tclient = OpenAI()\n\`\`\`\n\u001b[1mbold\u001b[0m\nkey seen: ${pieces.join('\u001b[0m')}\nDone.\n`;
    const expected = `Here is the fix:\n\n\`\`\`python\ndef main():\n\tclient = OpenAI()\n\`\`\`\n\u001b[1mbold\u001b[0m\nkey seen: ${redactedMark}\nDone.\n`;
    expect(redactorWith(key).redactKnown(answer)).toBe(expected);
    expect(redactorWith(key).redact(answer)).toBe(expected);
  });

  it('leaves a text with control characters and no secret exactly as it is', () => {
    const text = `\u001b[31mred\u001b[0m line\nnext\tline \u0007 ${'word '.repeat(10)}`;
    expect(redactorWith(key).redact(text)).toBe(text);
    expect(redactorWith(key).redactKnown(text)).toBe(text);
  });

  it('replaces a key cut short by a server that truncates its message', () => {
    const text = redactorWith(key).redact(`invalid key: ${key.slice(0, 12)}… (truncated) and …${key.slice(-9)}`);
    expect(leakedPieces(text, key)).toEqual([]);
    expect(text).toContain('(truncated)');
  });

  it('replaces a key JSON-escaped once and twice inside an echoed body', () => {
    const slashed = 'abc/def+ghi/jkl+mno/pqr';
    const redactor = redactorWith(key, slashed);
    const headers = { authorization: `Bearer ${key}`, 'x-custom': slashed };
    const once = JSON.stringify(headers).replaceAll('/', '\\/');
    const twice = JSON.stringify(JSON.stringify(headers));
    for (const body of [once, twice, encodeURIComponent(slashed)]) {
      const text = redactor.redact(body);
      expect(leakedPieces(text, key)).toEqual([]);
      expect(text).not.toContain('def+ghi');
      expect(text).not.toContain('def%2Bghi');
    }
  });

  it('replaces a key echoed in base64 or base64url, whole, inside Basic credentials, or cut short', () => {
    const redactor = redactorWith(key);
    const b64 = (text: string) => Buffer.from(text).toString('base64');
    for (const prefix of ['', 'u:', 'us:', 'user:']) {
      const encoded = b64(`${prefix}${key}`);
      for (const body of [`Authorization: Basic ${encoded} refused`, `echo ${encoded.replaceAll('+', '-').replaceAll('/', '_')}`, `cut: ${encoded.slice(0, 20)}`]) {
        const text = redactor.redact(body);
        expect(leakedPieces(text, b64(key).slice(4, -4))).toEqual([]);
        expect(leakedPieces(text, encoded.slice(8, -8))).toEqual([]);
      }
    }
  });

  it('replaces overlapping secrets (one containing the other, two sharing a piece) as one span', () => {
    const inner = key.slice(5, 25);
    const other = `${key.slice(20)}-tail-ZZ91`;
    const redactor = redactorWith(inner, other, key);
    const text = redactor.redact(`x ${key.slice(0, 30)}${other.slice(10)} y ${inner} z`);
    expect(text).toBe(`x ${redactedMark} y ${redactedMark} z`);
  });

  // The scan skips up to 7 characters where a window's last pair is in no piece (issue 33): a piece
  // must be found whatever the text before it, text made of the key's own pairs included.
  it('finds every 8-character piece of a key at every place, after text of its own characters or of others', () => {
    const redactor = redactorWith(key);
    for (const before of ['', 'x', 'xxxxxxxxxxxxxxx', key.slice(3, 10), key.slice(0, 7).repeat(3), 'ü€😀']) {
      // Pieces wholly inside the public prefix (`sk-canary-`) are no secret.
      for (let start = publicPrefix(key).length - 7; start + 8 <= key.length; start++) {
        for (let pad = 0; pad < 9; pad++) {
          const piece = key.slice(start, start + 8);
          const text = redactor.redact(`${before}${'-'.repeat(pad)}${piece}${before}`);
          expect(text, `${before} + ${pad} + ${piece}`).toContain(redactedMark);
          expect(leakedPieces(text, key)).toEqual([]);
        }
      }
    }
  });

  it(`ignores secrets shorter than ${minSecretLength} characters, so ordinary words stay`, () => {
    const redactor = redactorWith('hunter2', 'abc', '');
    const text = 'hunter2 typed abc into the prompt';
    expect(redactor.redact(text)).toBe(text);
  });

  it('leaves ordinary text alone: pieces shorter than 8 characters of a key, words, numbers', () => {
    const redactor = redactorWith(key);
    const text = 'sk-cana is a 7-letter prefix; canary, Q7vX2mL and the Bearer of good news; api key: required; authorization: granted; 1234567890';
    expect(redactor.redact(text)).toBe(text);
  });

  it('redacts credential-shaped values nobody registered: Authorization, x-api-key, api-key, Bearer, sk- and sk-ant- keys', () => {
    const redactor = new Redactor();
    const cases: [string, string][] = [
      ['Authorization: Bearer abcdef0123456789abcdef', `Authorization: Bearer ${redactedMark}`],
      ['{"authorization":"Bearer eyJhbGciOi.J9eyJzdWIi0.xyz"}', `{"authorization":"Bearer ${redactedMark}"}`],
      ['{\\"x-api-key\\":\\"k3y-value-0000\\"}', `{\\"x-api-key\\":\\"${redactedMark}\\"}`],
      ["'api-key': 'a1b2c3d4e5f6'", `'api-key': '${redactedMark}'`],
      ['url?api_key=ZXhh1234bXBs&x=1', `url?api_key=${redactedMark}&x=1`],
      ['sent sk-ant-api03-AbCdEf0123456789xyz as the key', `sent ${redactedMark} as the key`],
      ['used sk-proj-0123456789abcdefABCDEF', `used ${redactedMark}`],
      ['header proxy-authorization=Basic dXNlcjpwYXNz1234', `header proxy-authorization=Basic ${redactedMark}`],
    ];
    for (const [text, expected] of cases) expect(redactor.redact(text)).toBe(expected);
  });

  it("keeps a key's public prefix in text that only names the kind of key, and still removes the key itself", () => {
    const project = 'sk-proj-Q7vX2mLp9RzT4wKd8NfB3hYc6JsE0aW1';
    const redactor = redactorWith(project, 'sk-ant-api03-Z8M2nQ4rT6vX9bD1fH3jL5pR7');
    const code = "assert key.startswith('sk-proj-')  # Anthropic keys start sk-ant-api03-";
    expect(redactor.redactKnown(code)).toBe(code);
    expect(redactor.redact(`the key ${project} was refused`)).toBe(`the key ${redactedMark} was refused`);
    expect(redactor.redactKnown(`cut: ${project.slice(0, 14)}`)).not.toContain('Q7vX2m');
  });

  it("redactKnown removes the registered values only: a model's code keeps credential-shaped text that is no key in use", () => {
    const redactor = redactorWith(key);
    const code = `API_KEY=changeme123\nheaders = {"Authorization": "Bearer abcdef0123456789abcdef"}\nreal = "${key}"`;
    expect(redactor.redactKnown(code)).toBe(code.replace(key, redactedMark));
    expect(redactor.redact(code)).not.toContain('changeme123');
  });

  it('is idempotent: redacting redacted text changes nothing', () => {
    const redactor = redactorWith(key);
    const once = redactor.redact(`Authorization: Bearer ${key}; x-api-key: ${key}; ${key.slice(3, 20)}`);
    expect(redactor.redact(once)).toBe(once);
  });

  it('redacts every string inside objects and arrays, and returns untouched parts as the same objects', () => {
    const redactor = redactorWith(key);
    const clean = { type: 'step_started', step: 1, tags: ['a', 'b'] };
    expect(redactor.redactDeep(clean)).toBe(clean);
    const dirty = { type: 'session_paused', nested: { list: ['ok', `key ${key}`], n: 3 }, other: clean };
    const out = redactor.redactDeep(dirty);
    expect(out).toEqual({ type: 'session_paused', nested: { list: ['ok', `key ${redactedMark}`], n: 3 }, other: clean });
    expect(out.other).toBe(clean);
    expect(dirty.nested.list[1]).toContain(key); // the input is not changed
    expect(redactor.stringify(dirty)).not.toContain(key.slice(10, 18));
  });

  it('costs little on a 2 KB event (micro-benchmark, printed)', () => {
    const redactor = redactorWith(key, 'sk-ant-api03-Zc8vN2qLmW5xR7tY1uJkH4gF6dS0aP9oI3eB');
    const response = 'The durable session writes each step before the next one starts. '.repeat(30).slice(0, 2000);
    const event = { type: 'step_completed', step: 12, agent: 'worker', attempt: 1, idempotency_key: '0123456789abcdef:12:1', response, usage: { input: 812, output: 2000 }, duration_ms: 41, event_id: 87, ts: '2026-01-01T00:00:00.000Z' };
    const rounds = 2000;
    for (let i = 0; i < 200; i++) redactor.stringify(event);
    const started = performance.now();
    for (let i = 0; i < rounds; i++) redactor.stringify(event);
    const perEventUs = ((performance.now() - started) / rounds) * 1000;
    const plainStarted = performance.now();
    for (let i = 0; i < rounds; i++) JSON.stringify(event);
    const plainUs = ((performance.now() - plainStarted) / rounds) * 1000;
    console.log(`redactor: ${perEventUs.toFixed(1)} µs per 2 KB event (JSON.stringify alone ${plainUs.toFixed(1)} µs)`);
    // Generous bound for a loaded CI machine; an event append's fdatasync costs milliseconds.
    expect(perEventUs).toBeLessThan(500);
  });
});
