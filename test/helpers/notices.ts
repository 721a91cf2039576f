import type { Queryable } from '../../common/data/db.js';
import { eventually } from './http-server.js';

/** The case a notice was filed into, once the review worker has filed it. */
export const noticeCase = (db: Queryable, noticeId: string) =>
  eventually('the notice filed into a case', async () => {
    const { rows } = await db.query<{ case_id: string }>(
      'SELECT co.case_id FROM notices n JOIN case_offenses co ON co.offense_id = n.offense_id WHERE n.id = $1',
      [noticeId],
    );
    return rows[0]?.case_id;
  });
