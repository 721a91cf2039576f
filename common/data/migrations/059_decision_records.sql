-- Up Migration
-- Decision records (issue 49; common/domain/decision-record.ts): each decision is stored once, in the
-- transaction that makes it, and every message about it (the player's statement of reasons, the
-- studio's sanction.applied, the Transparency Database statement, the transparency report) is made
-- from that stored record, never from the rows as they are later. Until now the record was composed
-- from the rows each time it was read, so it could change after the decision: who decided was read
-- from the sanction's reason (a moderator's reason that began "Strike ladder:" read as the ladder's
-- automatic decision, and an erasure, which replaces the reason, turned the ladder's decision into a
-- moderator's), and a rule's name from the rule as it is now. A record holds no personal data and no
-- words anyone wrote, so an erasure leaves it whole; it is never updated (the trigger below).
CREATE TABLE decision_records (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  kind text NOT NULL CHECK (kind IN ('sanction')),
  subject_id uuid NOT NULL,
  record jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (kind, subject_id)
);

CREATE FUNCTION decision_records_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'a decision record is never changed (issue 49)' USING ERRCODE = 'restrict_violation';
END $$;
CREATE TRIGGER decision_records_immutable BEFORE UPDATE ON decision_records
  FOR EACH ROW EXECUTE FUNCTION decision_records_immutable();

-- The sanctions placed before this migration get the record their rows tell, as it was read until
-- now, except who decided: the ladder's placement is read from its audit entry (strikeLadder, which
-- an erasure keeps) as well as from its reason.
INSERT INTO decision_records (kind, subject_id, record, created_at)
SELECT 'sanction', s.id, jsonb_build_object(
         'sanctionId', s.id,
         'type', s.type,
         'scope', CASE WHEN s.scope_studio_id IS NULL THEN 'global' ELSE 'studio' END,
         'scopeName', st.name,
         'startsAt', s.starts_at,
         'expiresAt', s.expires_at,
         'matches', CASE WHEN s.matches_total IS NULL THEN NULL
                         ELSE jsonb_build_object('total', s.matches_total, 'left', s.matches_left) END,
         'createdAt', s.created_at,
         'category', s.dsa_category,
         'decidedBy', CASE
           WHEN s.rule_version IS NOT NULL THEN 'rule'
           WHEN s.issued_by_moderator IS NOT NULL AND s.case_id IS NOT NULL
                AND (starts_with(s.reason, 'Strike ladder:')
                     OR EXISTS (SELECT 1 FROM moderation_audit a
                                 WHERE a.action = 'place_sanction' AND a.details->>'sanctionId' = s.id::text
                                   AND a.details ? 'strikeLadder')) THEN 'strike_ladder'
           WHEN s.issued_by_moderator IS NOT NULL THEN 'moderator'
           ELSE 'studio' END,
         'rule', CASE WHEN s.rule_version IS NULL THEN NULL
                      ELSE jsonb_build_object('id', s.rule_id, 'name', coalesce(r.name, 'a rule'),
                                              'version', s.rule_version) END,
         'wave', CASE WHEN w.id IS NULL THEN NULL
                      ELSE jsonb_build_object('id', w.id, 'size', w.size,
                                              'approved', w.approved_by_moderator IS NOT NULL) END,
         'extendedFrom', CASE WHEN s.extended_from IS NULL THEN NULL
                              ELSE jsonb_build_object('sanctionId', s.extended_from, 'kinds', coalesce(
                                (SELECT a.details->'linkKinds' FROM moderation_audit a
                                  WHERE a.action = 'place_sanction' AND a.details->>'sanctionId' = s.id::text
                                    AND a.details ? 'linkKinds' LIMIT 1), '[]'::jsonb)) END,
         'case', CASE WHEN c.id IS NULL OR c.type IS NULL OR c.highest_severity IS NULL THEN NULL
                      ELSE jsonb_build_object(
                        'type', c.type,
                        'severity', c.highest_severity,
                        'firstReportAt', coalesce(o.first_report_at, s.created_at),
                        'origins', coalesce(to_jsonb(o.origins), '[]'::jsonb),
                        'categories', coalesce(to_jsonb(c.categories), '[]'::jsonb)) END),
       s.created_at
  FROM sanctions s
  LEFT JOIN studios st ON st.id = s.scope_studio_id
  LEFT JOIN rules r ON r.id = s.rule_id
  LEFT JOIN waves w ON w.id = s.wave_id
  LEFT JOIN review_cases c ON c.id = s.case_id
  LEFT JOIN LATERAL (
    SELECT min(x.created_at) AS first_report_at,
           array_agg(DISTINCT CASE
             WHEN x.context->>'source' IN ('anticheat_system', 'game_server', 'evasion_check', 'player',
                                           'notice', 'trusted_flagger')
               THEN x.context->>'source'
             WHEN x.reporter_id IS NOT NULL THEN 'player'
             ELSE 'game' END) AS origins
      FROM case_offenses co JOIN offenses x ON x.id = co.offense_id
     WHERE co.case_id = s.case_id) o ON s.case_id IS NOT NULL
ON CONFLICT (kind, subject_id) DO NOTHING;

-- Down Migration
DROP TABLE decision_records;
DROP FUNCTION decision_records_immutable();
