# passes: ToNonDataflow, CallTIRRewrite, StaticPlanBlockMemory
# lowered
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def placed(x: R.Tensor((1, 2, 3, 5), dtype="float32")) -> R.Tensor((1, 4, 3, 5), dtype="float32"):
        with R.dataflow():
            a = R.call_dps_packed("relaxjit.softmax", (x,), out_ty=R.Tensor((1, 2, 3, 5), dtype="float32"))
            b = R.call_dps_packed("relaxjit.softmax", (a,), out_ty=R.Tensor((1, 2, 3, 5), dtype="float32"))
            c = R.call_dps_packed("relaxjit.concat", (a, b, 1), out_ty=R.Tensor((1, 4, 3, 5), dtype="float32"))
            d = R.call_dps_packed("relaxjit.softmax", (c,), out_ty=R.Tensor((1, 4, 3, 5), dtype="float32"))
            R.output(d)
        return d

    @R.function
    def input_used_after(x: R.Tensor((1, 2, 3, 5), dtype="float32")) -> R.Tensor((1, 6, 3, 5), dtype="float32"):
        with R.dataflow():
            a = R.call_dps_packed("relaxjit.softmax", (x,), out_ty=R.Tensor((1, 2, 3, 5), dtype="float32"))
            b = R.call_dps_packed("relaxjit.softmax", (x,), out_ty=R.Tensor((1, 2, 3, 5), dtype="float32"))
            c = R.call_dps_packed("relaxjit.concat", (a, b, 1), out_ty=R.Tensor((1, 4, 3, 5), dtype="float32"))
            e = R.call_dps_packed("relaxjit.softmax", (b,), out_ty=R.Tensor((1, 2, 3, 5), dtype="float32"))
            d = R.call_dps_packed("relaxjit.concat", (c, e, 1), out_ty=R.Tensor((1, 6, 3, 5), dtype="float32"))
            f = R.call_dps_packed("relaxjit.softmax", (d,), out_ty=R.Tensor((1, 6, 3, 5), dtype="float32"))
            R.output(f)
        return f

    @R.function
    def param_and_batch(x: R.Tensor((1, 2, 3, 5), dtype="float32"), y: R.Tensor((2, 2, 3, 5), dtype="float32")) -> R.Tuple(R.Tensor((1, 4, 3, 5), dtype="float32"), R.Tensor((2, 4, 3, 5), dtype="float32")):
        with R.dataflow():
            a = R.call_dps_packed("relaxjit.softmax", (x,), out_ty=R.Tensor((1, 2, 3, 5), dtype="float32"))
            c = R.call_dps_packed("relaxjit.concat", (x, a, 1), out_ty=R.Tensor((1, 4, 3, 5), dtype="float32"))
            c1 = R.call_dps_packed("relaxjit.softmax", (c,), out_ty=R.Tensor((1, 4, 3, 5), dtype="float32"))
            p = R.call_dps_packed("relaxjit.softmax", (y,), out_ty=R.Tensor((2, 2, 3, 5), dtype="float32"))
            q = R.call_dps_packed("relaxjit.softmax", (y,), out_ty=R.Tensor((2, 2, 3, 5), dtype="float32"))
            r = R.call_dps_packed("relaxjit.concat", (p, q, 1), out_ty=R.Tensor((2, 4, 3, 5), dtype="float32"))
            r1 = R.call_dps_packed("relaxjit.softmax", (r,), out_ty=R.Tensor((2, 4, 3, 5), dtype="float32"))
            gv = (c1, r1)
            R.output(gv)
        return gv

    @R.function
    def returned(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((4, 3), dtype="float32"):
        with R.dataflow():
            a = R.call_dps_packed("relaxjit.softmax", (x,), out_ty=R.Tensor((2, 3), dtype="float32"))
            b = R.call_dps_packed("relaxjit.softmax", (x,), out_ty=R.Tensor((2, 3), dtype="float32"))
            c = R.call_dps_packed("relaxjit.concat", (a, b, 0), out_ty=R.Tensor((4, 3), dtype="float32"))
            R.output(c)
        return c

    @R.function
    def chain(x: R.Tensor((1, 2, 3, 5), dtype="float32")) -> R.Tensor((1, 8, 3, 5), dtype="float32"):
        with R.dataflow():
            a = R.call_dps_packed("relaxjit.softmax", (x,), out_ty=R.Tensor((1, 2, 3, 5), dtype="float32"))
            b = R.call_dps_packed("relaxjit.softmax", (a,), out_ty=R.Tensor((1, 2, 3, 5), dtype="float32"))
            c = R.call_dps_packed("relaxjit.concat", (a, b, 1), out_ty=R.Tensor((1, 4, 3, 5), dtype="float32"))
            e = R.call_dps_packed("relaxjit.softmax", (x,), out_ty=R.Tensor((1, 2, 3, 5), dtype="float32"))
            d = R.call_dps_packed("relaxjit.concat", (e, c, 1), out_ty=R.Tensor((1, 6, 3, 5), dtype="float32"))
            g = R.call_dps_packed("relaxjit.softmax", (d,), out_ty=R.Tensor((1, 6, 3, 5), dtype="float32"))
            h = R.call_dps_packed("relaxjit.softmax", (x,), out_ty=R.Tensor((1, 2, 3, 5), dtype="float32"))
            k = R.call_dps_packed("relaxjit.concat", (d, h, 1), out_ty=R.Tensor((1, 8, 3, 5), dtype="float32"))
            m = R.call_dps_packed("relaxjit.softmax", (k,), out_ty=R.Tensor((1, 8, 3, 5), dtype="float32"))
            R.output(m)
        return m
