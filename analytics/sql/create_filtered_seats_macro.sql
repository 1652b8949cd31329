CREATE OR REPLACE MACRO filtered_seats(since_, until_, event_, deck_, player_) AS TABLE
SELECT * FROM seats
WHERE (since_ IS NULL OR played_on >= CAST(since_ AS DATE))
  AND (until_ IS NULL OR played_on <= CAST(until_ AS DATE))
  AND (event_ IS NULL OR event = event_)
  AND (deck_ IS NULL OR deck = deck_)
  AND (player_ IS NULL OR name = player_)
