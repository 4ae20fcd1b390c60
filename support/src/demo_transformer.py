# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def transformer_block(x: R.Tensor((16, 64), dtype="float32"), wq: R.Tensor((64, 64), dtype="float32"), wk: R.Tensor((64, 64), dtype="float32"), wv: R.Tensor((64, 64), dtype="float32"), wo: R.Tensor((64, 64), dtype="float32"), g1: R.Tensor((64,), dtype="float32"), b1: R.Tensor((64,), dtype="float32"), w_up: R.Tensor((64, 128), dtype="float32"), b_up: R.Tensor((128,), dtype="float32"), w_down: R.Tensor((128, 64), dtype="float32"), b_down: R.Tensor((64,), dtype="float32"), g2: R.Tensor((64,), dtype="float32"), b2: R.Tensor((64,), dtype="float32")) -> R.Tensor((16, 64), dtype="float32"):
        with R.dataflow():
            q: R.Tensor((16, 64), dtype="float32") = R.matmul(x, wq, out_dtype=None)
            k: R.Tensor((16, 64), dtype="float32") = R.matmul(x, wk, out_dtype=None)
            v: R.Tensor((16, 64), dtype="float32") = R.matmul(x, wv, out_dtype=None)
            lv3: R.Tensor((16, 4, 16), dtype="float32") = R.reshape(q, R.shape([16, 4, 16]))
            qh: R.Tensor((4, 16, 16), dtype="float32") = R.permute_dims(lv3, axes=[1, 0, 2])
            lv5: R.Tensor((16, 4, 16), dtype="float32") = R.reshape(k, R.shape([16, 4, 16]))
            kh: R.Tensor((4, 16, 16), dtype="float32") = R.permute_dims(lv5, axes=[1, 2, 0])
            lv7: R.Tensor((16, 4, 16), dtype="float32") = R.reshape(v, R.shape([16, 4, 16]))
            vh: R.Tensor((4, 16, 16), dtype="float32") = R.permute_dims(lv7, axes=[1, 0, 2])
            s: R.Tensor((4, 16, 16), dtype="float32") = R.matmul(qh, kh, out_dtype=None)
            s1: R.Tensor((4, 16, 16), dtype="float32") = R.multiply(s, R.const(0.25, "float32"))
            p: R.Tensor((4, 16, 16), dtype="float32") = R.nn.softmax(s1, axis=-1)
            a: R.Tensor((4, 16, 16), dtype="float32") = R.matmul(p, vh, out_dtype=None)
            lv13: R.Tensor((16, 4, 16), dtype="float32") = R.permute_dims(a, axes=[1, 0, 2])
            a1: R.Tensor((16, 64), dtype="float32") = R.reshape(lv13, R.shape([16, 64]))
            o: R.Tensor((16, 64), dtype="float32") = R.matmul(a1, wo, out_dtype=None)
            r1: R.Tensor((16, 64), dtype="float32") = R.add(x, o)
            n1: R.Tensor((16, 64), dtype="float32") = R.nn.layer_norm(r1, g1, b1, axes=[-1], epsilon=1.0000000000000001e-05, center=True, scale=True)
            lv18: R.Tensor((16, 128), dtype="float32") = R.matmul(n1, w_up, out_dtype=None)
            u: R.Tensor((16, 128), dtype="float32") = R.add(lv18, b_up)
            ug: R.Tensor((16, 128), dtype="float32") = R.nn.gelu(u)
            lv21: R.Tensor((16, 64), dtype="float32") = R.matmul(ug, w_down, out_dtype=None)
            d: R.Tensor((16, 64), dtype="float32") = R.add(lv21, b_down)
            r2: R.Tensor((16, 64), dtype="float32") = R.add(n1, d)
            n2: R.Tensor((16, 64), dtype="float32") = R.nn.layer_norm(r2, g2, b2, axes=[-1], epsilon=1.0000000000000001e-05, center=True, scale=True)
            R.output(n2)
        return n2
