@tvm.script.ir_module
class expected_circular:
    @R.function
    def main(x: R.Tensor((1, 3, 10, 10), dtype="float32")) -> R.Tuple(
        R.Tensor((1, 3, 14, 12), dtype="float32")
    ):
        with R.dataflow():
            lv: R.Tensor((1, 3, 14, 12), dtype="float32") = R.zeros(
                R.shape([1, 3, 14, 12]), dtype="float32"
            )

            lv1: R.Tensor((1, 3, 14, 10), dtype="float32") = R.strided_slice(
                lv,
                (R.prim_value(3),),
                (R.prim_value(1),),
                (R.prim_value(11),),
                (R.prim_value(1),),
                assume_inbound=False,
            )

            lv2: R.Tensor((1, 3, 10, 10), dtype="float32") = R.strided_slice(
                x,
                (R.prim_value(3),),
                (R.prim_value(0),),
                (R.prim_value(10),),
                (R.prim_value(1),),
                assume_inbound=False,
            )

            lv3: R.Tensor((1, 3, 10, 10), dtype="float32") = R.strided_slice(
                lv1,
                (R.prim_value(2),),
                (R.prim_value(2),),
                (R.prim_value(12),),
                (R.prim_value(1),),
                assume_inbound=False,
            )

            lv4: R.Tensor((1, 3, 10, 10), dtype="float32") = R.strided_slice(
                lv2,
                (R.prim_value(2),),
                (R.prim_value(0),),
                (R.prim_value(10),),
                (R.prim_value(1),),
                assume_inbound=False,
            )

            lv5: R.Tensor((1, 3, 10, 10), dtype="float32") = R.broadcast_to(
                lv4, R.shape([1, 3, 10, 10])
            )

            lv6: R.Tensor((1, 3, 14, 10), dtype="float32") = R.strided_slice(
                lv,
                (R.prim_value(3),),
                (R.prim_value(1),),
                (R.prim_value(11),),
                (R.prim_value(1),),
                assume_inbound=False,
            )

            lv7: R.Tensor((1, 3, 14, 10), dtype="float32") = R.slice_scatter(
                lv6, lv5, R.prim_value(2), R.prim_value(12), R.prim_value(1), axis=2
            )

            lv8: R.Tensor((1, 3, 14, 12), dtype="float32") = R.slice_scatter(
                lv, lv7, R.prim_value(1), R.prim_value(11), R.prim_value(1), axis=3
            )

            lv9: R.Tensor((1, 3, 14, 1), dtype="float32") = R.strided_slice(
                lv8,
                (R.prim_value(3),),
                (R.prim_value(0),),
                (R.prim_value(1),),
                (R.prim_value(1),),
                assume_inbound=False,
            )

            lv10: R.Tensor((1, 3, 14, 1), dtype="float32") = R.strided_slice(
                lv8,
                (R.prim_value(3),),
                (R.prim_value(10),),
                (R.prim_value(11),),
                (R.prim_value(1),),
                assume_inbound=False,
            )

            lv11: R.Tensor((1, 3, 14, 1), dtype="float32") = R.broadcast_to(
                lv10, R.shape([1, 3, 14, 1])
            )

            lv12: R.Tensor((1, 3, 14, 12), dtype="float32") = R.slice_scatter(
                lv8, lv11, R.prim_value(0), R.prim_value(1), R.prim_value(1), axis=3
            )

            lv13: R.Tensor((1, 3, 14, 1), dtype="float32") = R.strided_slice(
                lv12,
                (R.prim_value(3),),
                (R.prim_value(11),),
                (R.prim_value(12),),
                (R.prim_value(1),),
                assume_inbound=False,
            )

            lv14: R.Tensor((1, 3, 14, 1), dtype="float32") = R.strided_slice(
                lv12,
                (R.prim_value(3),),
                (R.prim_value(1),),
                (R.prim_value(2),),
                (R.prim_value(1),),
                assume_inbound=False,
            )

            lv15: R.Tensor((1, 3, 14, 1), dtype="float32") = R.broadcast_to(
                lv14, R.shape([1, 3, 14, 1])
            )
            lv16: R.Tensor((1, 3, 14, 12), dtype="float32") = R.slice_scatter(
                lv12, lv15, R.prim_value(11), R.prim_value(12), R.prim_value(1), axis=3
            )

            lv17: R.Tensor((1, 3, 2, 12), dtype="float32") = R.strided_slice(
                lv16,
                (R.prim_value(2),),
                (R.prim_value(0),),
                (R.prim_value(2),),
                (R.prim_value(1),),
                assume_inbound=False,
            )

            lv18: R.Tensor((1, 3, 2, 12), dtype="float32") = R.strided_slice(
                lv16,
                (R.prim_value(2),),
                (R.prim_value(10),),
                (R.prim_value(12),),
                (R.prim_value(1),),
                assume_inbound=False,
            )

            lv19: R.Tensor((1, 3, 2, 12), dtype="float32") = R.broadcast_to(
                lv18, R.shape([1, 3, 2, 12])
            )

            lv20: R.Tensor((1, 3, 14, 12), dtype="float32") = R.slice_scatter(
                lv16, lv19, R.prim_value(0), R.prim_value(2), R.prim_value(1), axis=2
            )
            lv21: R.Tensor((1, 3, 2, 12), dtype="float32") = R.strided_slice(
                lv20,
                (R.prim_value(2),),
                (R.prim_value(12),),
                (R.prim_value(14),),
                (R.prim_value(1),),
                assume_inbound=False,
            )

            lv22: R.Tensor((1, 3, 2, 12), dtype="float32") = R.strided_slice(
                lv20,
                (R.prim_value(2),),
                (R.prim_value(2),),
                (R.prim_value(4),),
                (R.prim_value(1),),
                assume_inbound=False,
            )

            lv23: R.Tensor((1, 3, 2, 12), dtype="float32") = R.broadcast_to(
                lv22, R.shape([1, 3, 2, 12])
            )

            lv24: R.Tensor((1, 3, 14, 12), dtype="float32") = R.slice_scatter(
                lv20, lv23, R.prim_value(12), R.prim_value(14), R.prim_value(1), axis=2
            )
            gv: R.Tuple(R.Tensor((1, 3, 14, 12), dtype="float32")) = (lv24,)
            R.output(gv)
        return gv
