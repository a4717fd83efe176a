-- Exact full-text index: the porter tokenizer of memories_fts
-- cuts a word longer than 6 bytes that contains a digit to its first 3 + last 3 bytes, so
-- sha256sum, sha512sum and sha1sum all become "shasum". This second FTS4 index over the same
-- external content uses unicode61 (no stemming, no cutting): query terms holding such
-- identifiers are looked up here, every other word keeps porter stemming in memories_fts.
CREATE VIRTUAL TABLE memories_exact USING fts4(content="memories", title, content, tags, tokenize=unicode61);

-- The same trigger pattern as memories_fts: FTS4 external content reads the old text from
-- memories on delete, so deletes run BEFORE the row changes and inserts AFTER.
CREATE TRIGGER memories_exact_ai AFTER INSERT ON memories BEGIN
  INSERT INTO memories_exact(docid, title, content, tags) VALUES (new.rid, new.title, new.content, new.tags);
END;
CREATE TRIGGER memories_exact_bu BEFORE UPDATE OF title, content, tags ON memories BEGIN
  DELETE FROM memories_exact WHERE docid = old.rid;
END;
CREATE TRIGGER memories_exact_au AFTER UPDATE OF title, content, tags ON memories BEGIN
  INSERT INTO memories_exact(docid, title, content, tags) VALUES (new.rid, new.title, new.content, new.tags);
END;
CREATE TRIGGER memories_exact_bd BEFORE DELETE ON memories BEGIN
  DELETE FROM memories_exact WHERE docid = old.rid;
END;

-- Index every existing memory.
INSERT INTO memories_exact(memories_exact) VALUES ('rebuild');
