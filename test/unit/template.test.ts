import { describe, expect, it } from 'vitest';
import { checkTemplate, renderTemplate, TemplateError } from '../../source/spec/template.js';

describe('templates', () => {
  it('renders variables and step responses', () => {
    expect(renderTemplate('{{ topic }}: {{ steps[0].response }}', { topic: 'AI', steps: [{ response: 'yes' }] })).toBe('AI: yes');
  });

  it("truncates as strands-cli does: length-3 characters and '...'", () => {
    expect(renderTemplate('{{ t | truncate(10) }}', { t: 'abcdefghijklmnop' })).toBe('abcdefg...');
    expect(renderTemplate('{{ t | truncate(10) }}', { t: 'short' })).toBe('short');
    expect(renderTemplate('{{ t | truncate }}', { t: 'x'.repeat(150) })).toBe(`${'x'.repeat(97)}...`);
  });

  it('supports if/elif/else blocks, replace and tojson', () => {
    const source = '{% if n == 1 %}one{% elif n == 2 %}two{% else %}many{% endif %} {{ s | replace(" ", "-") }} {{ o | tojson }}';
    expect(renderTemplate(source, { n: 2, s: 'a b c', o: { k: [1, 'x'] } })).toBe('two a-b-c {"k":[1,"x"]}');
  });

  it('does not escape HTML', () => {
    expect(renderTemplate('{{ html }}', { html: '<b>&</b>' })).toBe('<b>&</b>');
  });

  it('names an undefined variable and how to set it', () => {
    expect(() => renderTemplate('Research {{ topic }}', { steps: [] })).toThrowError(/undefined variable 'topic' .*--var topic=/);
  });

  it('reports a syntax error with its line', () => {
    try {
      checkTemplate('fine\nstill fine {{ a b }}');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(TemplateError);
      expect((error as TemplateError).line).toBe(2);
    }
  });
});
