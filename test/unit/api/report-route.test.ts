import fs from 'node:fs';
import { expect } from 'chai';

describe('the report route (issue 33)', () => {
  it('only parses, calls the use case and answers: it imports nothing of common/data', () => {
    for (const file of fs.readdirSync('api/routes/reports').filter((f) => f.endsWith('.ts'))) {
      const text = fs.readFileSync(`api/routes/reports/${file}`, 'utf8');
      expect(text, file).not.to.match(/from '[./]*common\/data\//);
    }
  });
});
