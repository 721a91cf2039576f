import fs from 'node:fs';
import path from 'node:path';

const SOURCES = ['console/src', 'console/index.html', 'console/vite.config.ts'];

function newestMtime(entry: string): number {
  if (!fs.existsSync(entry)) return 0;
  const stat = fs.statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...fs.readdirSync(entry).map((name) => newestMtime(path.join(entry, name))));
}

/**
 * Builds the moderator console (Vite) into `outDir` when it is missing or older than its sources,
 * so `npm start` and the browser tests always serve the console as the code is now. Returns
 * whether it built.
 */
export async function ensureConsoleBuilt(outDir = 'dist/console'): Promise<boolean> {
  const index = path.join(outDir, 'index.html');
  const built = fs.existsSync(index) ? fs.statSync(index).mtimeMs : 0;
  if (built >= Math.max(...SOURCES.map(newestMtime))) return false;
  const { build } = await import('vite');
  await build({
    configFile: 'console/vite.config.ts',
    logLevel: 'warn',
    build: { outDir: path.resolve(outDir), emptyOutDir: true },
  });
  return true;
}
