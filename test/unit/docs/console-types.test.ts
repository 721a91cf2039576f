import fs from 'node:fs';
import { expect } from 'chai';
import { CONSOLE_TYPES, consoleTypes } from '../../../scripts/gen-console-types.js';

describe("the console's API types", function () {
  this.timeout(60_000);
  it('are generated from the OpenAPI document as it is now (npm run build:console regenerates them)', async () => {
    expect(
      fs.readFileSync(CONSOLE_TYPES, 'utf8') === (await consoleTypes()),
      `${CONSOLE_TYPES} is stale`,
    ).to.equal(true);
  });
});
