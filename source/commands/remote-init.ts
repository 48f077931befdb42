import { ExitCode } from '../errors/acode-error.js';
import { connectRemote } from '../store/remote/remote-client.js';
import { requireRemote } from '../store/remote/remote-url.js';
import { migrate } from '../store/remote/schema-migrate.js';
import { defaultHome } from '../store/acode-home.js';
import type { CommandContext } from './command-context.js';

/** `acode remote init`: creates the team store's schema, or migrates it to this acode's version. */
export async function remoteInitCommand(ctx: CommandContext): Promise<ExitCode> {
  const target = requireRemote(defaultHome(ctx.env), ctx.cwd, ctx.env);
  const db = await connectRemote(target);
  try {
    const { from, to } = await migrate(db);
    const done = from === to ? `already at schema version ${to}, nothing to do` : from === 0 ? `schema created (version ${to})` : `schema migrated from version ${from} to ${to}`;
    ctx.stderr.write(`team store ${target.shown}: ${done}\n`);
    return ExitCode.ok;
  } finally {
    await db.close();
  }
}
