-- asset: vlm_ocr_outputs
-- description: each page of each input has one result
-- A singular test, as dbt has them: the query returns the failing rows (here, pages with more than one result),
-- and the check fails when it returns any. Tables and columns: docs/quality.md.
SELECT source, page_num, count(*) AS results
FROM vlm_ocr_outputs
GROUP BY source, page_num
HAVING count(*) > 1
ORDER BY source, page_num
