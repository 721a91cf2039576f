-- Up Migration
-- Urgent notices (issue 51; README "Notices": "Urgent notices"): a notice that says a life or safety
-- is at risk (the DSA Art. 18 path), that a child is involved, or whose category is a child's
-- protection or self-harm goes to the top of the queue with a short deadline, and its case says so.

-- Why a notice is urgent: 'life' (a threat to life or safety: Art. 18), 'child', 'category'; null when
-- it is not. The transparency report counts them.
ALTER TABLE notices ADD COLUMN urgency text CHECK (urgency IN ('life', 'child', 'category'));
CREATE INDEX notices_urgent_idx ON notices (created_at) WHERE urgency IS NOT NULL;

-- A case holding an urgent notice: first in its queue (PRIORITY_WEIGHTS.urgent), due within
-- URGENT_NOTICE_DUE_HOURS, shown as urgent.
ALTER TABLE review_cases ADD COLUMN urgent boolean NOT NULL DEFAULT false;

-- Down Migration
ALTER TABLE review_cases DROP COLUMN urgent;
DROP INDEX notices_urgent_idx;
ALTER TABLE notices DROP COLUMN urgency;
