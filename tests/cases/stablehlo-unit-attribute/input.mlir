module @unit_attrs {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = "stablehlo.abs"(%arg0) {has_dynamic_root} : (tensor<4xf32>) -> tensor<4xf32>
    %1 = "stablehlo.negate"(%0) {
      has_dynamic_root,
      hloscope.note = "x, y",
      hloscope.flag
    } : (tensor<4xf32>) -> tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}
