-- Reserved: migration 0005 belongs to a change developed in parallel (sessions). This empty
-- placeholder keeps the numbering without gaps on this branch; it is replaced by the real 0005
-- when both are merged (never keep two files numbered 0005).
SELECT 1;
