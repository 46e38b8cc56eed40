"""Small pure-Python tokenizers for the pretrained fixtures: GPT-2 byte-level BPE and BERT WordPiece.

These are OUR implementations, written from the published algorithms (GPT-2's encoder.py
semantics; BERT's BasicTokenizer + WordpieceTokenizer). They are not independent references:
the fixtures use their ids only as model inputs, and selfcheck_pretrained.py compares the BPE
with the gpt-3-encoder package (when Node and node_modules are there).

GPT-2 pre-tokenization is the pattern
    's|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+
scanned by hand with unicodedata categories (Python's `re` has no \\p{..}).
"""
import unicodedata

CONTRACTIONS = ("'s", "'t", "'re", "'ve", "'m", "'ll", "'d")


def bytes_to_unicode():
    """GPT-2's byte -> printable character table (printable Latin-1 bytes map to themselves)."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("\u00a1"), ord("\u00ac") + 1)) + \
        list(range(ord("\u00ae"), ord("\u00ff") + 1))
    table, extra = {}, 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return table


def byte_tokens():
    """The 256 byte tokens in GPT-2's id order (ids 0..255): printable bytes first, then the others."""
    table = bytes_to_unicode()
    printable = [b for b in range(256) if table[b] == chr(b)]
    others = [b for b in range(256) if table[b] != chr(b)]
    return [table[b] for b in printable + others]


def _kind(ch):
    cat = unicodedata.category(ch)
    if cat[0] == "L":
        return "L"
    if cat[0] == "N":
        return "N"
    if ch.isspace():
        return "S"
    return "P"


def gpt2_pretokenize(text):
    out, i, n = [], 0, len(text)
    while i < n:
        hit = next((c for c in CONTRACTIONS if text.startswith(c, i)), None)
        if hit:
            out.append(hit)
            i += len(hit)
            continue
        k = i + 1 if text[i] == " " and i + 1 < n else i
        kind = _kind(text[k])
        if kind != "S":
            j = k
            while j < n and _kind(text[j]) == kind:
                j += 1
            out.append(text[i:j])
            i = j
            continue
        # whitespace run: \s+(?!\S) leaves the last space to the next token, else \s+ takes one
        j = i
        while j < n and text[j].isspace():
            j += 1
        if j == n:
            end = n
        elif j - i > 1:
            end = j - 1
        else:
            end = j
        out.append(text[i:end])
        i = end
    return out


class ByteLevelBpe:
    def __init__(self, vocab, merges, specials=("<|endoftext|>",)):
        """vocab {token: id}; merges [(a, b)] in rank order."""
        self.vocab = dict(vocab)
        self.inverse = {i: t for t, i in self.vocab.items()}
        self.ranks = {tuple(m): r for r, m in enumerate(merges)}
        self.specials = [s for s in specials if s in self.vocab]
        self.byte_map = bytes_to_unicode()
        self.unbyte = {c: b for b, c in self.byte_map.items()}

    def bpe(self, word):
        parts = list(word)
        while len(parts) > 1:
            best = min(range(len(parts) - 1), key=lambda i: self.ranks.get((parts[i], parts[i + 1]), float("inf")))
            pair = (parts[best], parts[best + 1])
            if pair not in self.ranks:
                break
            merged, i = [], 0
            while i < len(parts):
                if i < len(parts) - 1 and (parts[i], parts[i + 1]) == pair:
                    merged.append(parts[i] + parts[i + 1])
                    i += 2
                else:
                    merged.append(parts[i])
                    i += 1
            parts = merged
        return parts

    def _encode_plain(self, text):
        ids = []
        for piece in gpt2_pretokenize(text):
            word = "".join(self.byte_map[b] for b in piece.encode("utf-8"))
            ids.extend(self.vocab[t] for t in self.bpe(word))
        return ids

    def encode(self, text):
        """Ids of text; special tokens written literally become their id."""
        ids, rest = [], text
        while rest:
            at = [(rest.find(s), s) for s in self.specials if s in rest]
            if not at:
                ids.extend(self._encode_plain(rest))
                break
            pos, special = min(at)
            ids.extend(self._encode_plain(rest[:pos]))
            ids.append(self.vocab[special])
            rest = rest[pos + len(special):]
        return ids

    def decode(self, ids):
        """Text of ids (special tokens are printable ASCII, so the byte map covers them)."""
        text = "".join(self.inverse[i] for i in ids)
        return bytes(self.unbyte[ch] for ch in text).decode("utf-8", errors="replace")


# ------------------------------------------------------------------------------- WordPiece

def _is_control(ch):
    if ch in "\t\n\r":
        return False
    return unicodedata.category(ch) in ("Cc", "Cf")


def _is_whitespace(ch):
    if ch in " \t\n\r":
        return True
    return unicodedata.category(ch) == "Zs"


def _is_punctuation(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(cp):
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF or
            0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF or
            0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


def bert_basic_tokenize(text, lowercase=True, strip_accents=None, specials=()):
    """BertNormalizer(clean_text, handle_chinese_chars, strip_accents, lowercase) + BertPreTokenizer.

    strip_accents None follows lowercase (as in BERT). Special tokens in `specials` are kept whole.
    """
    cleaned = []
    for ch in text:
        if ord(ch) == 0 or ord(ch) == 0xFFFD or _is_control(ch):
            continue
        cleaned.append(" " if _is_whitespace(ch) else ch)
    spaced = []
    for ch in cleaned:
        spaced.append(" %s " % ch if _is_cjk(ord(ch)) else ch)
    text = "".join(spaced)
    words = []
    for word in text.split():
        if word in specials:
            words.append(word)
            continue
        if lowercase:
            word = word.lower()
        if strip_accents if strip_accents is not None else lowercase:
            word = "".join(c for c in unicodedata.normalize("NFD", word) if unicodedata.category(c) != "Mn")
        current = ""
        for ch in word:
            if _is_punctuation(ch):
                if current:
                    words.append(current)
                    current = ""
                words.append(ch)
            else:
                current += ch
        if current:
            words.append(current)
    return words


def wordpiece(word, vocab, unk="[UNK]", prefix="##", max_chars=100):
    """Greedy longest-match-first; the whole word is [UNK] if any part has no match."""
    if len(word) > max_chars:
        return [unk]
    pieces, start = [], 0
    while start < len(word):
        end = len(word)
        found = None
        while start < end:
            piece = word[start:end]
            if start > 0:
                piece = prefix + piece
            if piece in vocab:
                found = piece
                break
            end -= 1
        if found is None:
            return [unk]
        pieces.append(found)
        start = end
    return pieces


class BertWordPiece:
    def __init__(self, vocab_list, specials=("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")):
        self.vocab = {t: i for i, t in enumerate(vocab_list)}
        self.tokens_of = list(vocab_list)
        self.specials = specials
        self.unk = self.vocab["[UNK]"]

    def inverse(self, ids):
        return [self.tokens_of[i] for i in ids]

    def tokens(self, text):
        return [p for w in bert_basic_tokenize(text, specials=self.specials) for p in wordpiece(w, self.vocab)]

    def encode(self, text, pair=None):
        """(ids, token_type_ids) with [CLS] A [SEP] (B [SEP])."""
        a = [self.vocab[t] for t in self.tokens(text)]
        cls, sep = self.vocab["[CLS]"], self.vocab["[SEP]"]
        ids = [cls] + a + [sep]
        types = [0] * len(ids)
        if pair is not None:
            b = [self.vocab[t] for t in self.tokens(pair)]
            ids += b + [sep]
            types += [1] * (len(b) + 1)
        return ids, types
