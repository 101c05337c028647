"""Trains Herald's named-entity recogniser on CoNLL-2003 (train split; chosen on the dev split).

    pip install torch==2.13.0 transformers==5.24.0   # training only; Herald never imports them
    PYTHONPATH=src python scripts/train_recognizer.py --data DATA/conll2003 \
        --silver silver.json --out src/herald/data/models/recognizer

The encoder starts from the embedding model Herald ships (all-MiniLM-L6-v2: 6 layers, 384
wide, uncased). Casing reaches it as a learned embedding per casing id (word shape x sentence
casing mode, herald.enrich.ner_words) added to the word-piece embeddings (``--casing input``),
or concatenated to the encoder's output before the tag layer (``--casing head``), or not at all
(``--casing none``), to measure what casing is worth. The word-piece table stays frozen, so the
shipped file holds only what training changed and Herald reuses the embedding model's table.

Written: ``recognizer.safetensors`` (float16) and ``recognizer.json`` (tags, casing, layers,
window size, the base table's digest, the dev figures of the chosen epoch).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from recognizer_data import (
    FINE_TYPES,
    TYPES,
    add_extra_argument,
    examples,
    load_silver,
    spans,
    tag_names,
    training_documents,
)

from herald.enrich.ner_words import CASING_IDS

BASE = Path(__file__).resolve().parents[1] / "src/herald/data/models/all-MiniLM-L6-v2"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="the conll2003 folder")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--base", type=Path, default=BASE, help="the uncased encoder's folder")
    parser.add_argument("--silver", type=Path, help="MISC relabelled NORP/EVENT/PRODUCT")
    add_extra_argument(parser)
    parser.add_argument("--casing", choices=("input", "head", "none"), default="input")
    parser.add_argument("--layers", type=int, default=4, help="encoder layers kept (of 6)")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--lr", type=float, default=8e-5)
    parser.add_argument("--max-pieces", type=int, default=128)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()

    import torch
    from tokenizers import Tokenizer

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    tokenizer = Tokenizer.from_file(str(args.base / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    types = FINE_TYPES if args.silver else TYPES
    tags = tag_names(types)
    silver = load_silver(args.silver)
    train_docs, dev_docs = training_documents(args.data, silver, args.extra)
    dev = examples(dev_docs, tokenizer, tags, args.max_pieces)
    model = Tagger(args.base, len(tags), args.casing, args.layers)
    steps = args.epochs * math.ceil(
        len(examples(train_docs, tokenizer, tags, args.max_pieces)) / args.batch
    )
    optimiser, schedule = optimiser_for(model, args.lr, 1e-3, steps)
    rng = random.Random(args.seed)
    best: dict[str, Any] = {"f1": -1.0}
    started = time.time()
    for epoch in range(args.epochs):
        train = examples(train_docs, tokenizer, tags, args.max_pieces, rng)
        model.train()
        for n, batch in enumerate(batches(train, args.batch, rng)):
            loss = model.loss(*tensors(batch, torch))
            learn(model, loss, optimiser, schedule)
            if n % 100 == 0:
                print(
                    f"epoch {epoch} batch {n} loss {loss.item():.4f} {time.time() - started:.0f}s",
                    flush=True,
                )
        figures = evaluate(model, dev, tags, torch)
        print(f"epoch {epoch} dev {json.dumps(figures)}", flush=True)
        if figures["f1"] > best["f1"]:
            best = {**figures, "epoch": epoch + 1}
            save(model, args, tags, best)
    print("chosen", json.dumps(best))


def optimiser_for(model: Any, lr: float, head_lr: float, steps: int) -> tuple[Any, Any]:
    """AdamW over what training changes (the word-piece table stays frozen): the encoder at
    ``lr``, the casing table and tag layer at ``head_lr``; linear warm-up over the first 16th of
    ``steps``, then linear decay."""
    import torch

    frozen = {"bert.embeddings.word_embeddings.weight"}
    head = [p for n, p in model.named_parameters() if not n.startswith("bert.") and n not in frozen]
    body = [p for n, p in model.named_parameters() if n.startswith("bert.") and n not in frozen]
    optimiser = torch.optim.AdamW(
        [{"params": body, "lr": lr}, {"params": head, "lr": head_lr}], weight_decay=0.01
    )
    warmup = max(1, steps // 16)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: min((s + 1) / warmup, max(0.0, (steps - s) / (steps - warmup)))
    )
    return optimiser, schedule


def learn(model: Any, loss: Any, optimiser: Any, schedule: Any) -> None:
    """One step: gradients of ``loss``, clipped to norm 1, applied; the schedule moves on."""
    import torch

    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimiser.step()
    schedule.step()
    optimiser.zero_grad()


def _module() -> Any:
    import torch

    return torch.nn.Module


class Tagger(_module()):  # type: ignore[misc]
    def __init__(self, base: Path, n_tags: int, casing: str, layers: int) -> None:
        import torch
        from transformers import BertModel

        super().__init__()
        self.bert = BertModel.from_pretrained(str(base), add_pooling_layer=False)
        self.bert.encoder.layer = self.bert.encoder.layer[:layers]
        self.bert.config.num_hidden_layers = layers
        self.bert.embeddings.word_embeddings.weight.requires_grad = False
        hidden = self.bert.config.hidden_size
        self.casing_mode = casing
        self.casing = torch.nn.Embedding(CASING_IDS, hidden if casing == "input" else 32)
        torch.nn.init.normal_(self.casing.weight, std=0.02)
        width = hidden + (32 if casing == "head" else 0)
        self.dropout = torch.nn.Dropout(0.1)
        self.classifier = torch.nn.Linear(width, n_tags)

    def hidden(self, ids: Any, mask: Any, casing: Any) -> Any:
        """The encoder's last hidden state (casing added to its input when read there)."""
        embedded = self.bert.embeddings.word_embeddings(ids)
        if self.casing_mode == "input":
            embedded = embedded + self.casing(casing)
        return self.bert(inputs_embeds=embedded, attention_mask=mask).last_hidden_state

    def forward(self, ids: Any, mask: Any, casing: Any) -> Any:
        import torch

        hidden = self.hidden(ids, mask, casing)
        if self.casing_mode == "head":
            hidden = torch.cat([hidden, self.casing(casing)], dim=-1)
        return self.classifier(self.dropout(hidden))

    def loss(self, ids: Any, mask: Any, casing: Any, labels: Any) -> Any:
        import torch

        scores = self(ids, mask, casing)
        return torch.nn.functional.cross_entropy(
            scores.flatten(0, 1), labels.flatten(), ignore_index=-100
        )


def batches(items: list[Any], size: int, rng: random.Random) -> list[list[Any]]:
    """Examples of similar length together (less padding), the batches in random order."""
    order = sorted(range(len(items)), key=lambda i: (len(items[i].piece_ids), rng.random()))
    out = [[items[i] for i in order[s : s + size]] for s in range(0, len(order), size)]
    rng.shuffle(out)
    return out


def tensors(batch: list[Any], torch: Any) -> tuple[Any, Any, Any, Any]:
    width = max(len(e.piece_ids) for e in batch)

    def padded(rows: list[list[int]], fill: int) -> Any:
        return torch.tensor([r + [fill] * (width - len(r)) for r in rows], dtype=torch.long)

    ids = padded([e.piece_ids for e in batch], 0)
    mask = padded([[1] * len(e.piece_ids) for e in batch], 0)
    return ids, mask, padded([e.casing for e in batch], 0), padded([e.labels for e in batch], -100)


def evaluate(model: Any, dev: list[Any], tags: list[str], torch: Any) -> dict[str, Any]:
    """Mention-level exact-span F1 on dev (fine kinds folded back into MISC), greedy BIO."""
    model.eval()
    fold = {t: ("MISC" if t in ("NORP", "EVENT", "PRODUCT") else t) for t in FINE_TYPES}
    found: dict[str, list[int]] = {t: [0, 0, 0] for t in TYPES}  # tp, system, gold
    with torch.no_grad():
        for batch in batches(dev, 32, random.Random(0)):
            scores = model(*tensors(batch, torch)[:3]).argmax(-1).tolist()
            for example, predicted in zip(batch, scores, strict=True):
                positions = [i for i, label in enumerate(example.labels) if label != -100]
                gold = [tags[example.labels[i]] for i in positions]
                system = [tags[predicted[i]] for i in positions]
                gold_spans = {(a, b, fold[k]) for a, b, k in spans(gold)}
                system_spans = {(a, b, fold[k]) for a, b, k in spans(system)}
                for kind in TYPES:
                    g = {s for s in gold_spans if s[2] == kind}
                    p = {s for s in system_spans if s[2] == kind}
                    found[kind][0] += len(g & p)
                    found[kind][1] += len(p)
                    found[kind][2] += len(g)
    totals = [sum(v[i] for v in found.values()) for i in range(3)]
    out: dict[str, Any] = {k: _f1(*v) for k, v in found.items()}
    out.update(_f1(*totals))
    return out


def _f1(tp: int, system: int, gold: int) -> dict[str, float]:
    p = tp / system if system else 0.0
    r = tp / gold if gold else 0.0
    return {
        "p": round(p, 4),
        "r": round(r, 4),
        "f1": round(2 * p * r / (p + r) if p + r else 0.0, 4),
    }


def save(model: Any, args: argparse.Namespace, tags: list[str], figures: dict[str, Any]) -> None:
    import torch
    from safetensors.torch import save_file

    args.out.mkdir(parents=True, exist_ok=True)
    state = {
        name.removeprefix("bert."): value.detach().to(torch.float16).contiguous()
        for name, value in model.state_dict().items()
        if name != "bert.embeddings.word_embeddings.weight"
    }
    state = {
        ("casing_embeddings.weight" if k == "casing.weight" else k): v for k, v in state.items()
    }
    save_file(state, str(args.out / "recognizer.safetensors"))
    config = model.bert.config
    base_weights = hashlib.sha256((args.base / "model.safetensors").read_bytes()).hexdigest()
    meta = {
        "tags": tags,
        "casing": args.casing,
        "casing_ids": CASING_IDS,
        "layers": args.layers,
        "hidden": config.hidden_size,
        "heads": config.num_attention_heads,
        "layer_norm_eps": config.layer_norm_eps,
        "max_pieces": args.max_pieces,
        "base_weights_sha256": base_weights,
        "trained_on": "CoNLL-2003 English train split"
        + "".join(f" + {spec.partition('=')[0]}" for spec in args.extra)
        + (" + spaCy silver kinds for MISC" if args.silver else ""),
        "chosen_on": "CoNLL-2003 English development split (eng.testa)",
        "dev": figures,
        "settings": {k: v for k, v in vars(args).items() if k in ("epochs", "batch", "lr", "seed")},
    }
    (args.out / "recognizer.json").write_text(json.dumps(meta, indent=2) + "\n", "utf-8")


if __name__ == "__main__":
    main()
