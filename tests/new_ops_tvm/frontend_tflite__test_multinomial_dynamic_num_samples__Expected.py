@I.ir_module
class Expected:
    @R.function
    def main(
        logits: R.Tensor((2, 3), dtype="float32"),
        num_samples: R.Tensor((), dtype="int32"),
    ) -> R.Tensor(dtype="int64", ndim=2):
        R.func_attr({"num_input": 2})
        multinomial_num_samples = T.int64()
        with R.dataflow():
            lv: R.Tensor((), dtype="int32") = R.match_cast(
                num_samples, R.Tensor((), dtype="int32")
            )
            lv1: R.Tensor((), dtype="int64") = R.astype(lv, dtype="int64")
            lv2: R.Tensor((1,), dtype="int64") = R.reshape(lv1, R.shape([1]))
            lv3: R.Shape(ndim=1) = R.tensor_to_shape(lv2)
            _: R.Shape([multinomial_num_samples]) = R.match_cast(
                lv3, R.Shape([multinomial_num_samples])
            )
            lv5: R.Tensor((2, 3), dtype="float32") = R.nn.softmax(logits, axis=-1)
            lv6 = R.call_dps_packed(
                "tvm.contrib.random.uniform",
                (
                    R.prim_value(13),
                    R.prim_value(17),
                    R.prim_value(T.float64(0.0)),
                    R.prim_value(T.float64(1.0)),
                ),
                out_ty=R.Tensor((2 * multinomial_num_samples, 1), dtype="float32"),
            )
            lv7: R.Tensor((2,), dtype="int64") = R.arange(
                R.prim_value(0), R.prim_value(2), R.prim_value(1), dtype="int64"
            )
            lv8: R.Tensor((2, 1), dtype="int64") = R.expand_dims(lv7, axis=[1])
            lv9: R.Tensor((2, multinomial_num_samples), dtype="int64") = R.broadcast_to(
                lv8, R.shape([2, multinomial_num_samples])
            )
            lv10: R.Tensor((2 * multinomial_num_samples, 1), dtype="int64") = R.reshape(
                lv9, R.shape([2 * multinomial_num_samples, 1])
            )
            lv11: R.Tensor((2 * multinomial_num_samples, 1), dtype="int64") = (
                R.multinomial_from_uniform(lv5, lv6, lv10, dtype="int64")
            )
            gv: R.Tensor((2, multinomial_num_samples), dtype="int64") = R.reshape(
                lv11, R.shape([2, multinomial_num_samples])
            )
            R.output(gv)
        return gv
