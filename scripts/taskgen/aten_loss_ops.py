"""The operator table of the ATen loss and pointwise-backward family.

Each entry states one operator for the emitters in aten_loss.py: its entry
point's parameters (in the spec's order, which is ATen's schema order), the
tensors its kernels read, the host-side parameters derived from the scalar
arguments, and the element function. The element function is written once in
a small C subset shared by C++, CUDA, HIP and OpenCL C: the compute type is
`C` (float for f32/f16/bf16, double for f64), `(C)1` casts, and the math
calls EXP, LOG, LOG1P, TANH, FABS are mapped to each language's overloads;
RT(x) rounds x to the tensors' dtype and back (one of ATen's rounding points);
SELECT(c, a, b) is c ? a : b, branch-free on the CPU (ops with math calls use it).
"""

# kind of entry parameter -> C declaration
#   ("tensor", name)       const kgb_tensor*     (an input read by the kernel)
#   ("unused", name)       const kgb_tensor*     (an input the kernels need not read)
#   ("optional", name)     const kgb_tensor*     (NULL = None; reads as 1 when absent)
#   ("scalar", name)       kgb_scalar            (an ATen Scalar)
#   ("double", name)       double
#   ("bool", name)         int
#   ("enum", name)         int                   (reduction: none 0, mean 1, sum 2)
#   ("out", name)          kgb_tensor*

OPS = {
    "mish_backward": dict(
        summary="the gradient of mish(x) = x * tanh(softplus(x))",
        params=[("tensor", "grad_output"), ("tensor", "self"), ("out", "grad_input")],
        inputs=[("grad_output", "g"), ("self", "x")],
        fields=[],
        body="""const C sig = (C)1 / ((C)1 + EXP(-x));
    const C tsp = TANH(LOG1P(EXP(x)));
    return g * (tsp + x * sig * ((C)1 - tsp * tsp));""",
        # Some OpenCL libraries (PoCL) return tanh(+Inf) just below 1 or exp(+Inf)
        # finite; the formula's NaN at x = ±Inf is then stated explicitly.
        cl_guard="if (isinf(x)) return x - x;  /* ±Inf: the formula gives Inf * 0 = NaN */",
        flops=14,
    ),
    "softplus_backward": dict(
        summary="the gradient of softplus(x) = log(1 + exp(beta * x)) / beta",
        params=[("tensor", "grad_output"), ("tensor", "self"), ("scalar", "beta"), ("scalar", "threshold"),
                ("out", "grad_input")],
        inputs=[("grad_output", "g"), ("self", "x")],
        fields=[("beta", "real", "scalar_value(beta)"), ("threshold", "real", "scalar_value(threshold)")],
        body="""const C bx = x * p.beta;
    const C z = EXP(bx);
    return SELECT(bx > p.threshold, g, g * z / (z + (C)1));""",
        flops=6,
    ),
    "log_sigmoid_backward": dict(
        summary="the gradient of log(sigmoid(x)), computed from self alone (buffer is not read)",
        params=[("tensor", "grad_output"), ("tensor", "self"), ("unused", "buffer"), ("out", "grad_input")],
        inputs=[("grad_output", "g"), ("self", "x")],
        fields=[],
        body="""const C z = EXP(-FABS(x));
    const C q = z / ((C)1 + z);
    return g * SELECT(x < (C)0, (C)1 - q, q);""",
        flops=6,
    ),
    "smooth_l1_loss_backward": dict(
        summary="the gradient of the smooth L1 loss with respect to self",
        params=[("tensor", "grad_output"), ("tensor", "self"), ("tensor", "target"), ("enum", "reduction"),
                ("double", "beta"), ("out", "grad_input")],
        inputs=[("grad_output", "g"), ("self", "x"), ("target", "y")],
        fields=[("norm", "real", "reduction == 1 ? 1.0 / (double)numel_of(self) : 1.0"), ("beta", "real", "beta")],
        body="""const C d = x - y;
    if (p.beta <= (C)0) return d > (C)0 ? p.norm * g : (d < (C)0 ? -(p.norm * g) : (C)0 * g);
    return d < -p.beta ? -(p.norm * g) : (d > p.beta ? p.norm * g : p.norm * d * g / p.beta);""",
        flops=5,
    ),
    "rrelu_with_noise_backward": dict(
        summary="the gradient of rrelu_with_noise: grad * noise in training, else the leaky slope",
        params=[("tensor", "grad_output"), ("tensor", "self"), ("tensor", "noise"), ("scalar", "lower"),
                ("scalar", "upper"), ("bool", "training"), ("bool", "self_is_result"), ("out", "grad_input")],
        inputs=[("grad_output", "g"), ("self", "x"), ("noise", "r")],
        fields=[("use_noise", "int", "training && scalar_value(upper) - scalar_value(lower) > 1e-6"),
                ("slope", "real", "(scalar_value(lower) + scalar_value(upper)) / 2")],
        # Only the tensors the mode reads are loaded: the others read as 1.
        drop_when={"x": "fields.use_noise", "r": "!fields.use_noise"},
        body="""if (p.use_noise) return g * r;
    return x > (C)0 ? g : g * p.slope;""",
        flops=1,
    ),
    "huber_loss": dict(
        summary="the Huber loss: quadratic inside |self - target| < delta, linear outside",
        params=[("tensor", "self"), ("tensor", "target"), ("enum", "reduction"), ("double", "delta"), ("out", "out")],
        inputs=[("self", "x"), ("target", "y")],
        fields=[("delta", "real", "delta")],
        # 16-bit: ATen's kernel computes a - b in the dtype (rounded), the rest in float.
        body="""const C z = FABS(RT(x - y));
    return z < p.delta ? (C)0.5 * z * z : p.delta * (z - (C)0.5 * p.delta);""",
        flops=5,
        loss=True,
    ),
    "soft_margin_loss": dict(
        summary="the soft margin loss log(1 + exp(-target * self))",
        params=[("tensor", "self"), ("tensor", "target"), ("enum", "reduction"), ("out", "out")],
        inputs=[("self", "x"), ("target", "y")],
        fields=[],
        body="""return LOG1P(EXP(-x * y));""",
        flops=4,
        loss=True,
    ),
    "margin_ranking_loss": dict(
        summary="the margin ranking loss max(0, -target * (input1 - input2) + margin)",
        params=[("tensor", "input1"), ("tensor", "input2"), ("tensor", "target"), ("double", "margin"),
                ("enum", "reduction"), ("out", "out")],
        inputs=[("input1", "a"), ("input2", "b"), ("target", "y")],
        fields=[("margin", "real", "margin")],
        # ATen composes tensor ops: input1 - input2 is a tensor of the dtype (rounded),
        # then -target * d + margin is rounded once more (clamp_min is exact).
        body="""const C v = -y * RT(a - b) + p.margin;
    return v < (C)0 ? (C)0 : v;""",
        flops=4,
        loss=True,
    ),
    "binary_cross_entropy_with_logits": dict(
        summary="binary cross-entropy on logits with optional weight and pos_weight",
        params=[("tensor", "self"), ("tensor", "target"), ("optional", "weight"), ("optional", "pos_weight"),
                ("enum", "reduction"), ("out", "out")],
        inputs=[("self", "x"), ("target", "t"), ("weight", "w"), ("pos_weight", "pw")],
        fields=[],
        # log(1 + exp(-x)) = m + log(exp(-m) + exp(-x - m)) with m = max(-x, 0): no overflow.
        body="""const C m = SELECT(x < (C)0, -x, (C)0);
    const C softplus_neg = m + LOG(EXP(-m) + EXP(-x - m));
    const C log_weight = (C)1 + (pw - (C)1) * t;
    return w * (((C)1 - t) * x + log_weight * softplus_neg);""",
        flops=12,
        loss=True,
    ),
}
