-- Up Migration
-- The category of a restriction's statement to the DSA Transparency Database, when the moderator or
-- studio who placed it chose one instead of the one its case's kind gives (issue 35; README
-- "Regulation (EU DSA)"). Null: the kind's category. Its own column, not a code in the reason.
ALTER TABLE sanctions ADD COLUMN dsa_category text CHECK (dsa_category ~ '^STATEMENT_CATEGORY_[A-Z_]+$');

-- Down Migration
ALTER TABLE sanctions DROP COLUMN dsa_category;
