import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A throwaway PostgreSQL cluster for the tests and `npm run bench` (here, outside test/, so the
 * bench needs nothing of the test tree, and outside source/, so the CLI never ships it): initdb'd in a temp folder, run by the unprivileged
 * `postgres` user when the tests run as root (PostgreSQL refuses root), on a free loopback port,
 * with password (SCRAM) authentication. `stop` and `start` model a server going away and coming
 * back; `remove` kills its whole process group and deletes the folder.
 */
export interface PostgresCluster {
  readonly port: number;
  readonly user: string;
  readonly password: string;
  url(database?: string, password?: string): string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Runs SQL through psql as the superuser; its stdout. */
  psql(sql: string, database?: string): string;
  /** Stops the server (its whole process group) and deletes its folder. */
  remove(): Promise<void>;
}

/** The folder holding initdb, pg_ctl and postgres; undefined with the reason when there is none. */
export function findPostgres(): { bin: string } | { missing: string } {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a)) : [];
  if (versions.length > 0) return { bin: join(root, versions[0]!, 'bin') };
  const config = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  const bin = config.status === 0 ? config.stdout.trim() : '';
  if (bin && existsSync(join(bin, 'initdb'))) return { bin };
  return { missing: 'PostgreSQL is not installed (no initdb in /usr/lib/postgresql/*/bin or pg_config --bindir); install the Debian package postgresql' };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const asRoot = process.getuid?.() === 0;

function ownerIds(): { uid: number; gid: number } | undefined {
  if (!asRoot) return undefined;
  const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  return Number.isInteger(uid) && uid > 0 ? { uid, gid } : undefined;
}

/** A command as the cluster's owner: through runuser when the tests run as root. */
function asOwner(command: string, args: readonly string[]): [string, string[]] {
  return asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, [...args]];
}

export async function startPostgres(): Promise<PostgresCluster> {
  const found = findPostgres();
  if ('missing' in found) throw new Error(found.missing);
  const { bin } = found;
  const owner = ownerIds();
  if (asRoot && !owner) throw new Error('running as root, and there is no postgres user to run PostgreSQL as');
  const dir = mkdtempSync(join(tmpdir(), 'acode-pg-'));
  chmodSync(dir, 0o700);
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const data = join(dir, 'data');
  const user = 'acode';
  const password = 'Pg-pass-9f3e7c1a5b8d2e4f';
  const pwfile = join(dir, 'pw');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (owner) chownSync(pwfile, owner.uid, owner.gid);
  const [initCommand, initArgs] = asOwner(join(bin, 'initdb'), ['-D', data, '-U', user, '--auth=scram-sha-256', `--pwfile=${pwfile}`, '-E', 'UTF8', '--no-sync']);
  const init = spawnSync(initCommand, initArgs, { encoding: 'utf8', cwd: dir });
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${init.stderr}`);
  }
  rmSync(pwfile);
  const port = await freePort();
  let server: ChildProcess | undefined;
  let exited: Promise<void> | undefined;
  const env = { PATH: process.env.PATH ?? '', PGPASSWORD: password };

  const cluster: PostgresCluster = {
    port,
    user,
    password,
    url: (database = 'postgres', pw = password) => `postgres://${user}:${encodeURIComponent(pw)}@127.0.0.1:${port}/${database}`,
    async start() {
      const [command, args] = asOwner(join(bin, 'postgres'), ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'shared_buffers=16MB', '-c', 'max_connections=20']);
      // Its own process group: stopping it kills runuser, the postmaster and every backend.
      server = spawn(command, args, { cwd: dir, detached: true, stdio: 'ignore' });
      const child = server;
      exited = new Promise((resolve) => child.once('exit', () => resolve()));
      for (let waited = 0; ; waited += 100) {
        const ready = spawnSync(join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-U', user, '-d', 'postgres'], { encoding: 'utf8' });
        if (ready.status === 0) return;
        if (child.exitCode !== null || waited > 30_000) throw new Error(`PostgreSQL did not start on port ${port}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async stop() {
      if (!server?.pid) return;
      const pid = server.pid;
      server = undefined;
      try {
        process.kill(-pid, 'SIGINT');
      } catch {
        return;
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // Gone already.
        }
      }, 10_000);
      await exited;
      clearTimeout(timer);
      // The postmaster's children may outlive the runuser it answered to for a moment.
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    },
    psql(sql, database = 'postgres') {
      const result = spawnSync(join(bin, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', user, '-d', database, '-X', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-c', sql], { encoding: 'utf8', env });
      if (result.status !== 0) throw new Error(`psql failed: ${result.stderr}`);
      return result.stdout.trim();
    },
    async remove() {
      await cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  // A test process that ends without afterAll (a crash, a timeout's kill) takes the cluster with it.
  const onExit = () => {
    if (server?.pid) {
      try {
        process.kill(-server.pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', onExit);
  const remove = cluster.remove;
  cluster.remove = async () => {
    process.off('exit', onExit);
    await remove();
  };
  try {
    await cluster.start();
  } catch (error) {
    await cluster.remove();
    throw error;
  }
  return cluster;
}
