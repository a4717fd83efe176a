-- Recall context (docs/recall.md "What a memory is indexed with"): text a memory is found by
-- but never shows, who said it, and the dates its text refers to.
--   search_context  the previous turn of a conversation, a document chunk's heading path: indexed
--                   by the full-text leg (its own column, weighted below the memory's own text),
--                   never displayed.
--   speaker         who said it (a conversation turn's speaker, a person or an agent): a field
--                   recall matches when a query names them.
--   time_refs       JSON [[start, end), …] of the days its text refers to ("yesterday" in a note of
--                   8 May 2023 → 7 May 2023), resolved against the memory's own date at write time
--                   (src/core/text/timeRefs.ts); searched like created_at by date questions.
-- Values are bound from JavaScript (exact log replay); defaults keep existing rows as they were.
ALTER TABLE memories ADD COLUMN search_context TEXT NOT NULL DEFAULT '';
ALTER TABLE memories ADD COLUMN speaker TEXT;
ALTER TABLE memories ADD COLUMN time_refs TEXT NOT NULL DEFAULT '[]';
CREATE INDEX idx_memories_speaker ON memories(speaker) WHERE speaker IS NOT NULL;
-- Date questions look up the few memories whose text names a day (most name none).
CREATE INDEX idx_memories_dated ON memories(project_id) WHERE time_refs <> '[]';

-- Both full-text indexes get the search_context column: FTS4 cannot add a column, so they are
-- made again over the same external content, with the trigger pattern of 0001 and 0004.
DROP TRIGGER memories_ai;
DROP TRIGGER memories_bu;
DROP TRIGGER memories_au;
DROP TRIGGER memories_bd;
DROP TABLE memories_fts;
CREATE VIRTUAL TABLE memories_fts USING fts4(content="memories", title, content, tags, search_context, tokenize=porter);
CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
  INSERT INTO memories_fts(docid, title, content, tags, search_context) VALUES (new.rid, new.title, new.content, new.tags, new.search_context);
END;
CREATE TRIGGER memories_bu BEFORE UPDATE OF title, content, tags, search_context ON memories BEGIN
  DELETE FROM memories_fts WHERE docid = old.rid;
END;
CREATE TRIGGER memories_au AFTER UPDATE OF title, content, tags, search_context ON memories BEGIN
  INSERT INTO memories_fts(docid, title, content, tags, search_context) VALUES (new.rid, new.title, new.content, new.tags, new.search_context);
END;
CREATE TRIGGER memories_bd BEFORE DELETE ON memories BEGIN
  DELETE FROM memories_fts WHERE docid = old.rid;
END;
INSERT INTO memories_fts(memories_fts) VALUES ('rebuild');

DROP TRIGGER memories_exact_ai;
DROP TRIGGER memories_exact_bu;
DROP TRIGGER memories_exact_au;
DROP TRIGGER memories_exact_bd;
DROP TABLE memories_exact;
CREATE VIRTUAL TABLE memories_exact USING fts4(content="memories", title, content, tags, search_context, tokenize=unicode61);
CREATE TRIGGER memories_exact_ai AFTER INSERT ON memories BEGIN
  INSERT INTO memories_exact(docid, title, content, tags, search_context) VALUES (new.rid, new.title, new.content, new.tags, new.search_context);
END;
CREATE TRIGGER memories_exact_bu BEFORE UPDATE OF title, content, tags, search_context ON memories BEGIN
  DELETE FROM memories_exact WHERE docid = old.rid;
END;
CREATE TRIGGER memories_exact_au AFTER UPDATE OF title, content, tags, search_context ON memories BEGIN
  INSERT INTO memories_exact(docid, title, content, tags, search_context) VALUES (new.rid, new.title, new.content, new.tags, new.search_context);
END;
CREATE TRIGGER memories_exact_bd BEFORE DELETE ON memories BEGIN
  DELETE FROM memories_exact WHERE docid = old.rid;
END;
INSERT INTO memories_exact(memories_exact) VALUES ('rebuild');
