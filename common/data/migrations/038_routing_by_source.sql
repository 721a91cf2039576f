-- Up Migration
-- Routing rules may match where a case's reports came from (a game, an Art. 16 notice, a trusted
-- flagger) and the Transparency Database categories its notices name (issue 37; README "Queues").
ALTER TABLE queue_rules
  ADD COLUMN sources text[] CHECK (sources IS NULL OR (cardinality(sources) >= 1
                                   AND sources <@ ARRAY['game', 'notice', 'trusted_flagger'])),
  ADD COLUMN categories text[] CHECK (categories IS NULL OR cardinality(categories) >= 1);

-- What a case holds, kept as it is filed into (common/lifecycles/review-case.ts fileOffenses).
ALTER TABLE review_cases
  ADD COLUMN sources text[] NOT NULL DEFAULT '{}',
  ADD COLUMN categories text[] NOT NULL DEFAULT '{}';
UPDATE review_cases c SET
  sources = ARRAY(SELECT DISTINCT CASE WHEN o.context->>'source' IN ('notice', 'trusted_flagger')
                                       THEN o.context->>'source' ELSE 'game' END
                    FROM case_offenses co JOIN offenses o ON o.id = co.offense_id WHERE co.case_id = c.id ORDER BY 1),
  categories = ARRAY(SELECT DISTINCT o.details->>'dsaCategory'
                       FROM case_offenses co JOIN offenses o ON o.id = co.offense_id
                      WHERE co.case_id = c.id AND o.details ? 'dsaCategory' ORDER BY 1)
 WHERE c.status = 'open';

-- Down Migration
ALTER TABLE review_cases DROP COLUMN categories, DROP COLUMN sources;
ALTER TABLE queue_rules DROP COLUMN categories, DROP COLUMN sources;
