CREATE OR REPLACE MACRO filtered_seats(since_, until_, event_, deck_, player_, opp_deck_ := NULL, seat_ := NULL,
                                       colours_ := NULL, archetype_ := NULL, opp_archetype_ := NULL,
                                       game_ := NULL) AS TABLE
SELECT * FROM seats
WHERE (since_ IS NULL OR played_on >= CAST(since_ AS DATE))
  AND (until_ IS NULL OR played_on <= CAST(until_ AS DATE))
  AND (event_ IS NULL OR event = event_)
  AND (deck_ IS NULL OR deck = deck_)
  AND (player_ IS NULL OR name = player_)
  AND (opp_deck_ IS NULL OR opp_deck = opp_deck_)
  AND (seat_ IS NULL OR seat = seat_)
  AND (colours_ IS NULL OR colours = colours_)
  AND (archetype_ IS NULL OR archetype = archetype_)
  AND (opp_archetype_ IS NULL OR opp_archetype = opp_archetype_)
  AND (game_ IS NULL OR game = game_)
