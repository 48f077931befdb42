import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { renderTemplate } from '../../source/spec/template.js';
import { bundleForChild } from '../helpers/bundle-for-child.js';

/**
 * Each hostile template renders in a child node with a 300 MB heap: before the limits, these took
 * gigabytes and crashed the process (which left a session looking interrupted), so in-process
 * they would take the test runner down with them.
 */
function renderInChild(template: string, context: Record<string, unknown> = { topic: 'AI' }): { message: string; ms: number; rssMb: number } {
  const child = bundleForChild(`
    import { renderTemplate } from './source/spec/template.ts';
    const started = performance.now();
    let message = 'rendered';
    try {
      renderTemplate(process.argv[2], JSON.parse(process.argv[3]));
    } catch (error) {
      message = error.name + ': ' + error.message;
    }
    const ms = performance.now() - started;
    console.log(JSON.stringify({ message, ms, rssMb: process.resourceUsage().maxRSS / 1024 }));
  `);
  const run = spawnSync(process.execPath, ['--max-old-space-size=300', child, template, JSON.stringify(context)], { encoding: 'utf8', timeout: 60_000 });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as { message: string; ms: number; rssMb: number };
}

function expectRefused(template: string, message: RegExp, context?: Record<string, unknown>): void {
  const result = renderInChild(template, context);
  expect(result.message).toMatch(/^TemplateError: /);
  expect(result.message).toMatch(message);
  expect(result.ms).toBeLessThan(10_000);
  expect(result.rssMb).toBeLessThan(300);
}

describe('a template past its limits fails, naming the limit, in bounded memory and time', () => {
  it('refuses range(1000000000) before making the list', () => {
    expectRefused('{% for i in range(1000000000) %}x{% endfor %}', /range\(1000000000\) would make 1,000,000,000 items, past the limit of 1,000,000/);
  });

  it('refuses center(2000000000) before padding', () => {
    expectRefused('{{ topic | center(2000000000) }}', /center\(2000000000\) would make 2,000,000,000 characters, past the limit of 64 Mi/);
  });

  it('refuses indent(2000000000) before padding', () => {
    expectRefused('{{ topic | indent(2000000000) }}', /indent\(2000000000\) would make .* characters, past the limit of 64 Mi/);
  });

  it('stops nested range(100000) loops at the iteration limit', () => {
    expectRefused('{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}', /loops ran more than 200,000 times/);
  });

  it('stops a loop whose output passes the output limit', () => {
    expectRefused("{% set s = topic | center(1000) %}{% for i in range(100000) %}{{ s }}{% endfor %}", /wrote more than 64 Mi characters/);
  });

  it('says a self-calling macro recursed, not that a variable is undefined', () => {
    expectRefused('{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}', /macro 'm' called macros 100 deep/);
  });

  it('says a string doubled 40 times outgrew the limit, not that a variable is undefined', () => {
    const doubled = `{% set s = 'ab' %}${'{% set s = s ~ s %}'.repeat(40)}{{ s }}`;
    expectRefused(doubled, /joining strings with ~ would make .* characters, past the limit of 64 Mi/);
  });

  it('refuses replace that would multiply a string past the limit', () => {
    expectRefused("{% set s = topic | center(1000000) %}{{ s | replace('', s) }}", /replace would make .* characters/);
  });

  it('refuses joining a list of huge strings before joining', () => {
    expectRefused('{% set s = topic | center(30000000) %}{{ [s, s, s, s] | join }}', /join would make .* characters/);
  });

  it('stops a render that runs past its time', () => {
    expectRefused("{% set s = topic | center(3000000) %}{% for i in range(150000) %}{{ s | replace('zz', 'y') | length }}{% endfor %}", /took longer than 5 s to render/);
  });
});

describe('templates within the limits', () => {
  it('still loop, pad and recurse as far as the limits allow', () => {
    expect(renderTemplate('{% for i in range(3) %}{{ i }}{% endfor %}|{{ "a" | center(5) }}|{{ 1 + 2 }}|{{ "a" ~ "b" }}', {})).toBe('012|  a  |3|ab');
    expect(renderTemplate('{% macro down(n) %}{% if n > 0 %}{{ n }}{{ down(n - 1) }}{% endif %}{% endmacro %}{{ down(50) }}', {})).toHaveLength(91);
    expect(renderTemplate('{{ "ab" | center(7) }}|{{ "a\nb" | indent(2) }}|{{ "a\nb" | indent(2, true) }}', {})).toBe('  ab   |a\n  b|  a\n  b');
    expect(renderTemplate('{{ r | length }}', { r: 'x'.repeat(60 * 1024 * 1024) })).toBe(String(60 * 1024 * 1024));
  });
});
