import sinon from 'sinon';
import { stopTestServices } from './services.js';

// Mocha root hooks: sinon is restored after every test; the shared servers stop after the run.
export const mochaHooks = {
  afterEach() {
    sinon.restore();
  },
};

export async function mochaGlobalTeardown() {
  await stopTestServices();
}
