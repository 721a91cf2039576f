-- Up Migration
-- A rule that holds a player's points (issue 38; README "Rules"): until points_held_until, the
-- player's reports are filed as held for a moderator (statusReason rule_hold), whatever their studio's
-- budget; a rule releases the hold by clearing it.
ALTER TABLE players ADD COLUMN points_held_until timestamptz;
ALTER TABLE offenses
  DROP CONSTRAINT offenses_status_reason_check,
  ADD CONSTRAINT offenses_status_reason_check
    CHECK (status_reason IN ('studio_budget', 'reporter_credibility', 'reporter_muted', 'no_finding', 'notice',
                             'rule_hold'));

-- Down Migration
UPDATE offenses SET status_reason = 'studio_budget' WHERE status_reason = 'rule_hold';
ALTER TABLE offenses
  DROP CONSTRAINT offenses_status_reason_check,
  ADD CONSTRAINT offenses_status_reason_check
    CHECK (status_reason IN ('studio_budget', 'reporter_credibility', 'reporter_muted', 'no_finding', 'notice'));
ALTER TABLE players DROP COLUMN points_held_until;
