-- exactly 0 at k = 0 (where the formula's cancellation left +-1e-17), never below 0
CREATE OR REPLACE MACRO wilson_low(k, n) AS
CASE WHEN n > 0 AND k IS NOT NULL THEN
    CASE WHEN k = 0 THEN CAST(0 AS DOUBLE) ELSE greatest(CAST(0 AS DOUBLE),
    (CAST(k AS DOUBLE) / n + 1.959963984540054 ^ 2 / (2.0 * n)
     - 1.959963984540054 * sqrt(CAST(k AS DOUBLE) / n * (1 - CAST(k AS DOUBLE) / n) / n
                               + 1.959963984540054 ^ 2 / (4.0 * CAST(n AS DOUBLE) * n)))
    / (1 + 1.959963984540054 ^ 2 / n)) END
END
