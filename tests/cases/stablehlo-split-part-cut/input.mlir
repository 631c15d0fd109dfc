func.func @a(%x: tensor<f32>) -> tensor<f32> {
  %0 = "stablehlo.abs"(%x)
// -----
func.func @b(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
