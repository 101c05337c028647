"""Distils Herald's recogniser into fewer layers (CoNLL-2003 train split; chosen on the dev split).

    pip install torch==2.13.0 transformers==5.24.0   # training only; Herald never imports them
    PYTHONPATH=src python scripts/distil_recognizer.py --data DATA/conll2003 \
        --silver silver.json --teacher src/herald/data/models/recognizer --layers 2 --out DIR

The student starts from the teacher itself: its embeddings, casing table and tag layer, and the
teacher's encoder layers named by ``--keep`` (by default its first ``--layers``). It learns from
the gold tags and from the teacher's tag probabilities on the same windows (soft labels at a
temperature, Hinton et al. 2015), and its last hidden state is drawn towards the teacher's
(mean squared error, as TinyBERT does for the layers it maps). The windows are the training
script's, re-cased the same way, so the teacher scores exactly what the student reads.

Written as ``scripts/train_recognizer.py`` writes a model: ``recognizer.safetensors`` and
``recognizer.json`` (with the distillation's settings), ready for ``scripts/recognizer_ranges.py``
and ``bench/recognizer_compare.py``.
"""

from __future__ import annotations

import argparse
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
    add_extra_argument,
    examples,
    load_silver,
    tag_names,
    training_documents,
)
from train_recognizer import BASE, Tagger, batches, evaluate, learn, optimiser_for, save, tensors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="the conll2003 folder")
    parser.add_argument("--teacher", type=Path, required=True, help="a recogniser folder")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--base", type=Path, default=BASE, help="the uncased encoder's folder")
    parser.add_argument("--silver", type=Path, required=True, help="the teacher's silver file")
    add_extra_argument(parser)
    parser.add_argument("--layers", type=int, default=2, help="the student's encoder layers")
    parser.add_argument("--keep", type=str, default="", help="teacher layers kept, e.g. 0,2")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--lr", type=float, default=8e-5)
    parser.add_argument("--temperature", type=float, default=2.0)
    parser.add_argument("--soft", type=float, default=0.7, help="weight of the soft labels")
    parser.add_argument("--hidden", type=float, default=1.0, help="weight of the hidden MSE")
    parser.add_argument("--max-pieces", type=int, default=128)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    args.casing = "input"

    import torch
    from tokenizers import Tokenizer

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    tokenizer = Tokenizer.from_file(str(args.base / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    tags = tag_names(FINE_TYPES)
    teacher_meta = json.loads((args.teacher / "recognizer.json").read_text("utf-8"))
    if teacher_meta["tags"] != tags or teacher_meta["casing"] != "input":
        raise SystemExit("the teacher must tag the fine kinds with casing read as input")
    silver = load_silver(args.silver)
    train_docs, dev_docs = training_documents(args.data, silver, args.extra)
    dev = examples(dev_docs, tokenizer, tags, args.max_pieces)

    teacher = _loaded(args.base, args.teacher, len(tags), int(teacher_meta["layers"]))
    teacher.eval()
    print("teacher dev", json.dumps(evaluate(teacher, dev, tags, torch)), flush=True)
    keep = [int(k) for k in args.keep.split(",")] if args.keep else list(range(args.layers))
    student = _loaded(args.base, args.teacher, len(tags), int(teacher_meta["layers"]))
    student.bert.encoder.layer = torch.nn.ModuleList([student.bert.encoder.layer[k] for k in keep])
    student.bert.config.num_hidden_layers = len(keep)
    args.layers = len(keep)

    steps = args.epochs * math.ceil(
        len(examples(train_docs, tokenizer, tags, args.max_pieces)) / args.batch
    )
    optimiser, schedule = optimiser_for(student, args.lr, args.lr, steps)
    rng = random.Random(args.seed)
    best: dict[str, Any] = {"f1": -1.0}
    started = time.time()
    t = args.temperature
    for epoch in range(args.epochs):
        train = examples(train_docs, tokenizer, tags, args.max_pieces, rng)
        student.train()
        for n, batch in enumerate(batches(train, args.batch, rng)):
            ids, mask, casing, labels = tensors(batch, torch)
            with torch.no_grad():
                teacher_hidden = teacher.hidden(ids, mask, casing)
                teacher_scores = teacher.classifier(teacher_hidden)
            hidden = student.hidden(ids, mask, casing)
            scores = student.classifier(student.dropout(hidden))
            scored = labels != -100
            hard = torch.nn.functional.cross_entropy(scores[scored], labels[scored])
            soft = torch.nn.functional.kl_div(
                torch.log_softmax(scores[scored] / t, -1),
                torch.log_softmax(teacher_scores[scored] / t, -1),
                log_target=True,
                reduction="batchmean",
            ) * (t * t)
            real = mask.bool()
            mse = torch.nn.functional.mse_loss(hidden[real], teacher_hidden[real])
            loss = (1 - args.soft) * hard + args.soft * soft + args.hidden * mse
            learn(student, loss, optimiser, schedule)
            if n % 100 == 0:
                print(
                    f"epoch {epoch} batch {n} loss {loss.item():.4f} (hard {hard.item():.4f} "
                    f"soft {soft.item():.4f} hidden {mse.item():.4f}) {time.time() - started:.0f}s",
                    flush=True,
                )
        figures = evaluate(student, dev, tags, torch)
        print(f"epoch {epoch} dev {json.dumps(figures)}", flush=True)
        if figures["f1"] > best["f1"]:
            best = {**figures, "epoch": epoch + 1}
            save(student, args, tags, best)
            _note_distillation(args, keep)
    print("chosen", json.dumps(best))


def _loaded(base: Path, folder: Path, n_tags: int, layers: int) -> Any:
    """A Tagger holding the recogniser in ``folder`` (its word-piece table from ``base``)."""
    import torch
    from safetensors.torch import load_file

    model = Tagger(base, n_tags, "input", layers)
    state = {
        k: v.to(torch.float32) for k, v in load_file(str(folder / "recognizer.safetensors")).items()
    }
    renamed = {
        (
            "casing.weight"
            if k == "casing_embeddings.weight"
            else k
            if k.startswith("classifier.")
            else f"bert.{k}"
        ): v
        for k, v in state.items()
    }
    missing, unexpected = model.load_state_dict(renamed, strict=False)
    if unexpected or set(missing) != {"bert.embeddings.word_embeddings.weight"}:
        raise SystemExit(f"teacher weights do not fit: missing {missing}, unexpected {unexpected}")
    return model


def _note_distillation(args: argparse.Namespace, keep: list[int]) -> None:
    path = args.out / "recognizer.json"
    meta = json.loads(path.read_text("utf-8"))
    teacher = json.loads((args.teacher / "recognizer.json").read_text("utf-8"))
    meta["trained_on"] += (
        f"; distilled from a {teacher['layers']}-layer recogniser trained on the same data"
        f" (its layers {keep} kept)"
    )
    meta["settings"].update(
        {"temperature": args.temperature, "soft": args.soft, "hidden": args.hidden, "keep": keep}
    )
    path.write_text(json.dumps(meta, indent=2) + "\n", "utf-8")


if __name__ == "__main__":
    main()
