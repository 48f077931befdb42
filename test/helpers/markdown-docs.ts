import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import GithubSlugger from 'github-slugger';
import { marked, type Token, type Tokens } from 'marked';

/** The repository's root (this file is test/helpers/markdown-docs.ts). */
export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** The pages a person reads: README.md, ARCHITECTURE.md and every docs/*.md. */
export function documentationFiles(root = repoRoot): string[] {
  const docs = existsSync(join(root, 'docs')) ? readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => join(root, 'docs', name)) : [];
  return [join(root, 'README.md'), join(root, 'ARCHITECTURE.md'), ...docs].filter((file) => existsSync(file));
}

/** Text as GitHub shows it: inline code without its backticks, a link's words without its target. */
function plainText(tokens: Token[] | undefined): string {
  return (tokens ?? []).map((token) => ('tokens' in token && token.tokens ? plainText(token.tokens) : 'text' in token ? String(token.text) : '')).join('');
}

/** The anchors GitHub gives the headings of a markdown text, duplicates numbered as it numbers them. */
export function headingAnchors(markdown: string): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  for (const token of marked.lexer(markdown)) if (token.type === 'heading') anchors.add(slugger.slug(plainText((token as Tokens.Heading).tokens)));
  return anchors;
}

/** Every link and image target in a markdown text (not those shown as code). */
export function linkTargets(markdown: string): string[] {
  const targets: string[] = [];
  // walkTokens returns the callbacks' results, promises for an async callback: this one is synchronous.
  void marked.walkTokens(marked.lexer(markdown), (token) => {
    if (token.type === 'link' || token.type === 'image') targets.push((token as Tokens.Link | Tokens.Image).href);
  });
  return targets;
}

/**
 * The relative links of `files` that lead nowhere: a file or folder that does not exist, or an
 * `#anchor` no heading of the target page has. Links to other sites are not followed (a test must
 * not need the network); each dead one is `file: target (why)`, the file relative to `root`.
 */
export function deadLinks(files: string[], root = repoRoot): string[] {
  const dead: string[] = [];
  for (const file of files) {
    for (const target of linkTargets(readFileSync(file, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const [path = '', anchor] = target.split('#', 2);
      const page = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
      const where = `${relative(root, file)}: ${target}`;
      if (!existsSync(page)) {
        dead.push(`${where} (no such file)`);
        continue;
      }
      if (anchor === undefined || anchor === '') continue;
      if (!page.endsWith('.md')) dead.push(`${where} (an anchor into a file that is not markdown)`);
      else if (!headingAnchors(readFileSync(page, 'utf8')).has(decodeURIComponent(anchor))) dead.push(`${where} (no heading has the anchor #${anchor})`);
    }
  }
  return dead;
}

/** The fenced code blocks under the heading whose text is `heading` (up to the next heading of its level or above). */
export function codeBlocksUnder(markdown: string, heading: string): { lang: string; text: string }[] {
  const blocks: { lang: string; text: string }[] = [];
  let depth: number | undefined;
  for (const token of marked.lexer(markdown)) {
    if (token.type === 'heading') {
      const { depth: level, tokens } = token as Tokens.Heading;
      if (depth !== undefined && level <= depth) break;
      if (plainText(tokens) === heading) depth = level;
    } else if (depth !== undefined && token.type === 'code') {
      const { lang, text } = token as Tokens.Code;
      blocks.push({ lang: lang ?? '', text });
    }
  }
  return blocks;
}
