-- Up Migration
-- What became of an offense's points, on the offense itself (common/domain/offense-lifecycle.ts is
-- the one place that moves it): `restored` once a dismissal or a granted appeal gave its points back
-- (penalty_restored: how many, under the 100 cap), and for a held offense that was `dropped`, the
-- decision that dropped it. A restored or dropped offense is final: no path gives its points back
-- again. Expand only: the previous release never writes these columns and never reads 'restored'.
ALTER TABLE offenses
  ADD COLUMN penalty_restored integer NOT NULL DEFAULT 0 CHECK (penalty_restored >= 0),
  ADD COLUMN restored_by text CHECK (restored_by IN ('dismissal', 'appeal')),
  ADD COLUMN restored_at timestamptz,
  DROP CONSTRAINT offenses_status_check,
  ADD CONSTRAINT offenses_status_check
    CHECK (status IN ('applied', 'held', 'released', 'dropped', 'recorded', 'restored')),
  ADD CONSTRAINT offenses_restored_check
    CHECK ((status = 'restored') <= (restored_by IS NOT NULL AND restored_at IS NOT NULL)
           AND penalty_restored <= penalty_points);

-- Records written before: the offenses of dismissed cases gave their points back (the case's
-- points_restored, shared out in the order the reports came, each at most what it took), held ones
-- were dropped by the dismissal; a granted appeal of an offense gave back its points_refunded.
WITH dismissed AS (
  SELECT o.id, c.resolved_at, o.status, o.penalty_points, c.points_restored,
         coalesce(sum(o.penalty_points) OVER (PARTITION BY c.id ORDER BY o.created_at, o.id
                                              ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before
    FROM review_cases c JOIN case_offenses co ON co.case_id = c.id JOIN offenses o ON o.id = co.offense_id
   WHERE c.outcome = 'dismissed' AND o.status IN ('applied', 'dropped'))
UPDATE offenses o
   SET status = CASE WHEN d.status = 'applied' THEN 'restored' ELSE 'dropped' END,
       penalty_restored = CASE WHEN d.status = 'applied'
                               THEN GREATEST(0, LEAST(d.penalty_points, d.points_restored - d.before)) ELSE 0 END,
       restored_by = 'dismissal', restored_at = d.resolved_at
  FROM dismissed d WHERE o.id = d.id;
UPDATE offenses o
   SET status = 'restored', penalty_restored = LEAST(a.points_refunded, o.penalty_points),
       restored_by = 'appeal', restored_at = a.decided_at
  FROM appeals a
 WHERE a.offense_id = o.id AND a.status = 'granted' AND o.status IN ('applied', 'released');

-- The appeal claim that may not be taken (against the claimer's own decision) and the release of one.
ALTER TABLE moderation_audit
  DROP CONSTRAINT moderation_audit_action_check,
  ADD CONSTRAINT moderation_audit_action_check
    CHECK (action IN ('claim', 'release', 'resolve', 'mute_reporter', 'unmute_reporter', 'place_sanction',
                      'revoke_sanction', 'claim_appeal', 'decide_appeal', 'release_appeal'));

-- Down Migration
DELETE FROM moderation_audit WHERE action = 'release_appeal';
ALTER TABLE moderation_audit
  DROP CONSTRAINT moderation_audit_action_check,
  ADD CONSTRAINT moderation_audit_action_check
    CHECK (action IN ('claim', 'release', 'resolve', 'mute_reporter', 'unmute_reporter', 'place_sanction',
                      'revoke_sanction', 'claim_appeal', 'decide_appeal'));
UPDATE offenses SET status = 'applied' WHERE status = 'restored';
ALTER TABLE offenses
  DROP CONSTRAINT offenses_restored_check,
  DROP CONSTRAINT offenses_status_check,
  ADD CONSTRAINT offenses_status_check
    CHECK (status IN ('applied', 'held', 'released', 'dropped', 'recorded')),
  DROP COLUMN restored_at,
  DROP COLUMN restored_by,
  DROP COLUMN penalty_restored;
