import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import {
  CONSOLE_CONTRACT,
  CONSOLE_TYPES,
  consoleContract,
  consoleTypes,
} from '../../../scripts/gen-console-types.js';

/** The console's source files (not the generated ones). */
function consoleSources(dir = 'console/src'): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'generated' ? [] : consoleSources(p);
    return /\.tsx?$/.test(e.name) ? [p] : [];
  });
}

describe("the console's API types", function () {
  this.timeout(60_000);
  it('are generated from the OpenAPI document as it is now (npm run build:console regenerates them)', async () => {
    expect(
      fs.readFileSync(CONSOLE_TYPES, 'utf8') === (await consoleTypes()),
      `${CONSOLE_TYPES} is stale`,
    ).to.equal(true);
  });

  it("and its lists and limits too: the console copies none of the server's (issue 33)", () => {
    expect(fs.readFileSync(CONSOLE_CONTRACT, 'utf8'), `${CONSOLE_CONTRACT} is stale`).to.equal(
      consoleContract(),
    );
    // No screen spells a list of sanction types, offense kinds or severities of its own.
    const copies = consoleSources().filter((file) =>
      /\[\s*'(warning|cheating|low)',\s*'(chat_restriction|toxicity|medium)'/.test(
        fs.readFileSync(file, 'utf8'),
      ),
    );
    expect(copies).to.deep.equal([]);
  });

  it('no field limit typed in by hand: every maxLength comes from the generated contract (issue 49)', () => {
    const typed = consoleSources().flatMap((file) =>
      [...fs.readFileSync(file, 'utf8').matchAll(/maxLength=\{\s*\d+\s*\}|maxlength="\d+"/g)].map(
        (m) => `${file}: ${m[0]}`,
      ),
    );
    expect(typed).to.deep.equal([]);
  });
});
