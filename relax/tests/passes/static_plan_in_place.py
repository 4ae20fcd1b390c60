# passes: ToNonDataflow, CallTIRRewrite, StaticPlanBlockMemory
# lowered
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def residual_chain(x: R.Tensor((1, 4, 24, 24), dtype="float32"), w: R.Tensor((4, 4, 1, 1), dtype="float32"), b: R.Tensor((1, 4, 1, 1), dtype="float32")) -> R.Tensor((1, 4, 24, 24), dtype="float32"):
        # Each output over the residual before it: `a`, `c`, `d` and `f` share one storage.
        with R.dataflow():
            a = R.call_dps_packed("relaxjit.softmax", (x,), out_ty=R.Tensor((1, 4, 24, 24), dtype="float32"))
            c = R.call_dps_packed("relaxjit.conv2d_add_add_relu", (x, w, b, a, 1, 1, 0, 0, 0, 0, 1, 1, 1), out_ty=R.Tensor((1, 4, 24, 24), dtype="float32"))
            d = R.call_dps_packed("relaxjit.conv2d_add_add_relu", (x, w, b, c, 1, 1, 0, 0, 0, 0, 1, 1, 1), out_ty=R.Tensor((1, 4, 24, 24), dtype="float32"))
            e = R.call_dps_packed("relaxjit.softmax", (x,), out_ty=R.Tensor((1, 4, 24, 24), dtype="float32"))
            f = R.call_dps_packed("relaxjit.conv2d_add_add_relu", (e, w, b, d, 1, 1, 0, 0, 0, 0, 1, 1, 1), out_ty=R.Tensor((1, 4, 24, 24), dtype="float32"))
            g = R.call_dps_packed("relaxjit.softmax", (f,), out_ty=R.Tensor((1, 4, 24, 24), dtype="float32"))
            R.output(g)
        return g

    @R.function
    def not_placed(x: R.Tensor((1, 4, 24, 24), dtype="float32"), w: R.Tensor((4, 4, 1, 1), dtype="float32"), b: R.Tensor((1, 4, 1, 1), dtype="float32"), s: R.Tensor((4,), dtype="float32")) -> R.Tuple(R.Tensor((1, 4, 24, 24), dtype="float32"), R.Tensor((1, 4, 24, 24), dtype="float32")):
        with R.dataflow():
            # A parameter is not planned: a fresh output.
            c = R.call_dps_packed("relaxjit.conv2d_add_add", (x, w, b, x, 1, 1, 0, 0, 0, 0, 1, 1, 1), out_ty=R.Tensor((1, 4, 24, 24), dtype="float32"))
            # The residual is read again later.
            d = R.call_dps_packed("relaxjit.conv2d_add_add", (x, w, b, c, 1, 1, 0, 0, 0, 0, 1, 1, 1), out_ty=R.Tensor((1, 4, 24, 24), dtype="float32"))
            e = R.call_dps_packed("relaxjit.softmax", (c,), out_ty=R.Tensor((1, 4, 24, 24), dtype="float32"))
            # With a batch norm the convolution is normalized alone.
            f = R.call_dps_packed("relaxjit.conv2d_bn_add", (x, w, s, s, s, s, e, 1, 1, 0, 0, 0, 0, 1, 1, 1, R.prim_value(T.float64(1.0000000000000001e-05))), out_ty=R.Tensor((1, 4, 24, 24), dtype="float32"))
            # The residual is the operand too.
            g = R.call_dps_packed("relaxjit.softmax", (f,), out_ty=R.Tensor((1, 4, 24, 24), dtype="float32"))
            h = R.call_dps_packed("relaxjit.conv2d_add_add", (g, w, b, g, 1, 1, 0, 0, 0, 0, 1, 1, 1), out_ty=R.Tensor((1, 4, 24, 24), dtype="float32"))
            # An addend of another shape (broadcast).
            k = R.call_dps_packed("relaxjit.softmax", (x,), out_ty=R.Tensor((1, 4, 24, 24), dtype="float32"))
            m = R.call_dps_packed("relaxjit.softmax", (b,), out_ty=R.Tensor((1, 4, 1, 1), dtype="float32"))
            n = R.call_dps_packed("relaxjit.conv2d_add", (k, w, m, 1, 1, 0, 0, 0, 0, 1, 1, 1), out_ty=R.Tensor((1, 4, 24, 24), dtype="float32"))
            gv = (h, n)
            R.output(gv)
        return gv

    @R.function
    def concats(x: R.Tensor((1, 2, 24, 24), dtype="float32"), w: R.Tensor((4, 4, 1, 1), dtype="float32"), v: R.Tensor((2, 4, 1, 1), dtype="float32"), u: R.Tensor((1, 2, 1, 1), dtype="float32")) -> R.Tensor((1, 4, 24, 24), dtype="float32"):
        with R.dataflow():
            a = R.call_dps_packed("relaxjit.softmax", (x,), out_ty=R.Tensor((1, 2, 24, 24), dtype="float32"))
            b = R.call_dps_packed("relaxjit.softmax", (x,), out_ty=R.Tensor((1, 2, 24, 24), dtype="float32"))
            c = R.call_dps_packed("relaxjit.concat", (a, b, 1), out_ty=R.Tensor((1, 4, 24, 24), dtype="float32"))
            d = R.call_dps_packed("relaxjit.conv2d_add", (c, v, u, 1, 1, 0, 0, 0, 0, 1, 1, 1), out_ty=R.Tensor((1, 2, 24, 24), dtype="float32"))
            # The output of a concat done in place as the residual: its storage, whole.
            e = R.call_dps_packed("relaxjit.conv2d_add", (d, w, c, 1, 1, 0, 0, 0, 0, 1, 1, 1), out_ty=R.Tensor((1, 4, 24, 24), dtype="float32"))
            f = R.call_dps_packed("relaxjit.softmax", (e,), out_ty=R.Tensor((1, 4, 24, 24), dtype="float32"))
            R.output(f)
        return f

    @R.function
    def small_planes(x: R.Tensor((1, 4, 5, 5), dtype="float32"), w: R.Tensor((4, 4, 1, 1), dtype="float32"), b: R.Tensor((1, 4, 1, 1), dtype="float32")) -> R.Tensor((1, 4, 5, 5), dtype="float32"):
        # Planes of fewer than 512 positions (split by channels over the threads): a fresh
        # output, not over the residual `a`.
        with R.dataflow():
            a = R.call_dps_packed("relaxjit.softmax", (x,), out_ty=R.Tensor((1, 4, 5, 5), dtype="float32"))
            c = R.call_dps_packed("relaxjit.conv2d_add_add_relu", (x, w, b, a, 1, 1, 0, 0, 0, 0, 1, 1, 1), out_ty=R.Tensor((1, 4, 5, 5), dtype="float32"))
            g = R.call_dps_packed("relaxjit.softmax", (c,), out_ty=R.Tensor((1, 4, 5, 5), dtype="float32"))
            R.output(g)
        return g

    @R.function
    def matmul(x: R.Tensor((3, 8), dtype="float32"), w: R.Tensor((8, 8), dtype="float32")) -> R.Tensor((3, 8), dtype="float32"):
        with R.dataflow():
            a = R.call_dps_packed("relaxjit.softmax", (x,), out_ty=R.Tensor((3, 8), dtype="float32"))
            b = R.call_dps_packed("relaxjit.matmul_add", (x, w, a), out_ty=R.Tensor((3, 8), dtype="float32"))
            c = R.call_dps_packed("relaxjit.softmax", (b,), out_ty=R.Tensor((3, 8), dtype="float32"))
            R.output(c)
        return c
