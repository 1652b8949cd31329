CREATE OR REPLACE MACRO wilson_low(k, n) AS
CASE WHEN n > 0 THEN
    (k / n + 1.959963984540054 ^ 2 / (2 * n)
     - 1.959963984540054 * sqrt(k / n * (1 - k / n) / n + 1.959963984540054 ^ 2 / (4 * n * n)))
    / (1 + 1.959963984540054 ^ 2 / n)
END
