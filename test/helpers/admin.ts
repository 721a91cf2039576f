import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The admin tool run as an operator runs it (a process of its own): its exit code and output. */
export async function runAdmin(
  env: NodeJS.ProcessEnv,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  return runAdminWithInput(env, '', ...args);
}

/** The same, with `input` on its standard input (as `printf '%s\n' "$PW" | npm run -s admin -- ...`). */
export async function runAdminWithInput(
  env: NodeJS.ProcessEnv,
  input: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const running = run(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args], {
      env,
      maxBuffer: 64 * 1024 * 1024,
    });
    running.child.stdin!.end(input);
    const { stdout, stderr } = await running;
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
