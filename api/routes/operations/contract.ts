import { problem } from '../../openapi-parts.js';

/** The OpenAPI operations of the operations routes (routes.ts beside it); api/openapi.ts assembles them. */
export const paths = {
  '/admin/queues': {
    get: {
      operationId: 'queueBoard',
      tags: ['operations'],
      summary: 'The read-only queue board (Bull Board), for admin moderators',
      description:
        "A browser page: HTTP Basic with an admin moderator's username and password. Its assets and API live under /admin/queues/.",
      responses: {
        200: { description: 'The board.', content: { 'text/html': { schema: { type: 'string' } } } },
        401: problem('No or wrong credentials (WWW-Authenticate: Basic), or not an admin.'),
      },
    },
  },
  '/metrics': {
    get: {
      operationId: 'metrics',
      tags: ['operations'],
      summary: 'Prometheus metrics of the API (of all its processes, with API_PROCESSES)',
      description:
        'Requests by method, route and status with latency histograms, queue depths by state, outbox backlog. With METRICS_TOKEN set, send Authorization: Bearer <token>. With API_PROCESSES above 1, aggregated over every process (counters summed; shared-state gauges their maximum).',
      responses: {
        200: {
          description: 'Prometheus text format.',
          content: { 'text/plain': { schema: { type: 'string' } } },
        },
        401: problem('METRICS_TOKEN is set and the request does not carry it.'),
        503: problem('With API_PROCESSES above 1: the other processes did not answer within 6 s.'),
      },
    },
  },
};
