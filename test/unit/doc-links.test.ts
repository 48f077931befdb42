import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../source/errors/acode-error.js';
import { deadLinks, documentationFiles, headingAnchors, linkTargets, repoRoot } from '../helpers/markdown-docs.js';
import { tempDir } from '../helpers/temp-dir.js';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const docsPages = documentationFiles().filter((file) => file.includes(`${join(repoRoot, 'docs')}`));

describe('the documentation links', () => {
  it('every relative link and #anchor in README.md, ARCHITECTURE.md and docs/*.md resolves', () => {
    expect(docsPages.length).toBeGreaterThan(0);
    expect(deadLinks(documentationFiles())).toEqual([]);
  });

  it('a link to a missing page, a missing anchor or an anchor in a missing heading is reported', () => {
    const root = tempDir();
    mkdirSync(join(root, 'docs'));
    writeFileSync(join(root, 'README.md'), '# Tool\n\n## Set it up\n\n[ok](docs/a.md#the-a-page) [self](#set-it-up) [gone](docs/gone.md) [wrong anchor](docs/a.md#nowhere)\n\n`[in code](docs/gone.md)`\n');
    writeFileSync(join(root, 'ARCHITECTURE.md'), '# Map\n\n[back](README.md#set-it-up) [site](https://example.com/x)\n');
    writeFileSync(join(root, 'docs', 'a.md'), '# The `a` page\n\n![picture](../media/missing.png)\n');
    expect(deadLinks(documentationFiles(root), root)).toEqual([
      'README.md: docs/gone.md (no such file)',
      'README.md: docs/a.md#nowhere (no heading has the anchor #nowhere)',
      'docs/a.md: ../media/missing.png (no such file)',
    ]);
  });

  it('anchors are GitHub\'s: lower case, punctuation dropped, spaces as hyphens, repeats numbered', () => {
    expect([...headingAnchors('# Team store (PostgreSQL)\n## Why a step stopped, and how it continues\n## `--stream` output\n## Notes\n## Notes\n')])
      .toEqual(['team-store-postgresql', 'why-a-step-stopped-and-how-it-continues', '--stream-output', 'notes', 'notes-1']);
  });
});

describe('the README', () => {
  it('is a door: at most 150 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(150);
  });

  it('links ARCHITECTURE.md and every docs page, so each can be found by name', () => {
    const targets = new Set(linkTargets(readme).map((target) => target.split('#')[0]));
    expect(targets).toContain('ARCHITECTURE.md');
    for (const page of docsPages) expect(targets, `README.md links docs/${basename(page)}`).toContain(`docs/${basename(page)}`);
  });

  it('lists exactly the exit codes acode exits with', () => {
    const table = readme.split('## Exit codes')[1]?.split('\n## ')[0] ?? '';
    const codes = [...table.matchAll(/^\| (\d+) \|/gm)].map((match) => Number(match[1]));
    expect(codes).toEqual(Object.values(ExitCode));
  });
});

describe('each docs page', () => {
  it('starts with its title and a paragraph saying what it answers', () => {
    for (const page of docsPages) {
      const [title = '', blank, answers = ''] = readFileSync(page, 'utf8').split('\n');
      expect(title, basename(page)).toMatch(/^# \S/);
      expect(blank, basename(page)).toBe('');
      expect(answers, basename(page)).toMatch(/^[A-Z`].{40,}/);
    }
  });
});
