import { BULK, type Scenario } from '../harness.js';

const scenario: Scenario = {
  order: 8,
  what: 'bulk: 100 reports on random players a request; its figure is reports/s, not requests/s',
  against: { B100: 0.8 },
  make: (ctx) => (s) =>
    ctx.perItem(s, '/v1/reports/batch', BULK, () => ({
      reports: Array.from({ length: BULK }, () => ({
        kind: 'anticheat',
        serviceId: ctx.randomPlayer(),
        report: ctx.reportObject,
      })),
    })),
};
export default scenario;
