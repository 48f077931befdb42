import type { ToolSpec } from '../provider.js';

/** The built-in tools, named as strands-cli names them, described for OpenAI-style tool calling. */
export const builtinTools = {
  file_read: {
    name: 'file_read',
    description: 'Read a text file and return its content.',
    parameters: { type: 'object', properties: { path: { type: 'string', description: 'file path, relative to the working directory' }, encoding: { type: 'string', default: 'utf-8' } }, required: ['path'] },
  },
  file_write: {
    name: 'file_write',
    description: 'Write (create or replace) a text file.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'file path, relative to the working directory' },
        content: { type: 'string', description: 'the whole new content' },
        encoding: { type: 'string', default: 'utf-8' },
        create_dirs: { type: 'boolean', default: false, description: 'create missing parent directories' },
      },
      required: ['path', 'content'],
    },
  },
  grep: {
    name: 'grep',
    description: 'Search a file (or every file under a directory) for lines matching a regular expression; returns path:line: text with context lines.',
    parameters: {
      type: 'object',
      properties: {
        pattern: { type: 'string', description: 'regular expression' },
        path: { type: 'string', description: 'file or directory' },
        context_lines: { type: 'integer', default: 3 },
        ignore_case: { type: 'boolean', default: false },
        max_matches: { type: 'integer', default: 100 },
      },
      required: ['pattern', 'path'],
    },
  },
  head: {
    name: 'head',
    description: 'Return the first lines of a text file.',
    parameters: { type: 'object', properties: { path: { type: 'string' }, lines: { type: 'integer', default: 10 } }, required: ['path'] },
  },
  tail: {
    name: 'tail',
    description: 'Return the last lines of a text file.',
    parameters: { type: 'object', properties: { path: { type: 'string' }, lines: { type: 'integer', default: 10 } }, required: ['path'] },
  },
  current_time: {
    name: 'current_time',
    description: 'Return the current date and time.',
    parameters: {
      type: 'object',
      properties: { format: { type: 'string', enum: ['iso', 'unix', 'human'], default: 'iso' }, timezone: { type: 'string', enum: ['utc', 'local'], default: 'utc' } },
    },
  },
  calculator: {
    name: 'calculator',
    description: 'Evaluate an arithmetic expression: numbers, + - * / ^ (or **) % !, parentheses, sqrt, exp, log, sin/cos/tan and their inverses, floor, ceil, round, abs, min, max, gcd, lcm, pi, e; `x = 2; x * 3` names a value.',
    parameters: { type: 'object', properties: { expression: { type: 'string', description: "e.g. '2 + 2', '10 * 5 - 3', 'sqrt(2) ^ 2'" } }, required: ['expression'] },
  },
  http_request: {
    name: 'http_request',
    description: 'Make an HTTP request (GET, POST, PUT, DELETE) to a host the workflow allows; returns the status, the headers and the body (at most 1 MiB).',
    parameters: {
      type: 'object',
      properties: {
        url: { type: 'string', description: 'absolute http(s) URL' },
        method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'DELETE'], default: 'GET' },
        headers: { type: 'object', description: 'HTTP headers as names to values' },
        body: { type: 'string', description: 'request body (POST, PUT)' },
        timeout: { type: 'integer', default: 30, description: 'seconds (at most 120)' },
      },
      required: ['url'],
    },
  },
  python_exec: {
    name: 'python_exec',
    description: 'Run Python code with python3 in the working directory and return what it prints (stdout, then stderr and the exit status if any).',
    parameters: {
      type: 'object',
      properties: { code: { type: 'string', description: 'Python code to run' }, timeout: { type: 'integer', default: 30, description: 'seconds before it is killed (at most 300)' } },
      required: ['code'],
    },
  },
} as const satisfies Record<string, ToolSpec>;

export type BuiltinToolName = keyof typeof builtinTools;

export function isBuiltinTool(name: string): name is BuiltinToolName {
  return Object.hasOwn(builtinTools, name);
}

/**
 * strands-cli's spellings of one tool: `file_read`, `strands_tools.file_read`,
 * `strands_tools.file_read.file_read`, `strands_cli.tools.file_read` → `file_read`.
 */
export function toolId(spelling: string): string {
  const parts = spelling.split('.');
  if (parts[0] === 'strands_tools') return parts[1] ?? spelling;
  if (parts[0] === 'strands_cli' && parts[1] === 'tools') return parts[2] ?? spelling;
  return spelling;
}
