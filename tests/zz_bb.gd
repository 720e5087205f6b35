extends SceneTree
# Probe: persistent SubViewport + canvas multimesh with INSTANCE_CUSTOM + hint_screen_texture max.
const SH := """
shader_type canvas_item;
render_mode blend_disabled, unshaded;
uniform sampler2D old_tex : hint_screen_texture, filter_nearest;
uniform vec4 rects[4];
uniform float tv[4];
vec3 enc(float t) { return vec3(floor(t / 65536.0), mod(floor(t / 256.0), 256.0), mod(t, 256.0)) / 255.0; }
float dec(vec3 c) { vec3 k = round(c * 255.0); return k.r * 65536.0 + k.g * 256.0 + k.b; }
void fragment() {
	float old = dec(texture(old_tex, SCREEN_UV).rgb);
	float t = old;
	vec2 p = FRAGCOORD.xy;
	for (int i = 0; i < 4; i++) { if (p.x > rects[i].x && p.y > rects[i].y && p.x < rects[i].z && p.y < rects[i].w) t = max(t, tv[i]); }
	COLOR = vec4(enc(t), 1.0);
}
"""
var vp: SubViewport
var mm: RID
var ci: RID
var step := 0
func _initialize():
	vp = SubViewport.new()
	vp.size = Vector2i(64, 64)
	vp.render_target_clear_mode = SubViewport.CLEAR_MODE_ONCE
	vp.render_target_update_mode = SubViewport.UPDATE_ONCE
	vp.transparent_bg = true
	vp.disable_3d = true
	root.add_child(vp)
	var rs := RenderingServer
	var mat := ShaderMaterial.new()
	var s := Shader.new(); s.code = SH; mat.shader = s
	ci = rs.canvas_item_create()
	rs.canvas_item_set_parent(ci, vp.find_world_2d().canvas)
	rs.canvas_item_set_material(ci, mat.get_rid())
	mm = rs.multimesh_create()
	var mesh := QuadMesh.new(); mesh.size = Vector2(1, 1)
	rs.multimesh_set_mesh(mm, mesh.get_rid())
	rs.multimesh_allocate_data(mm, 4, RenderingServer.MULTIMESH_TRANSFORM_2D, false, true)
	rs.canvas_item_add_multimesh(ci, mm)
	set_meta("keep", [mat, s, mesh])
	set_stamps([[Vector2(8,8), Vector2(16,16), 1000.0]])
func set_stamps(list):
	var buf := PackedFloat32Array()
	for i in 4:
		var t := Transform2D()
		var c := 0.0
		if i < list.size():
			var e = list[i]
			t = Transform2D(0, e[1], 0, e[0] + e[1] * 0.5)
			c = e[2]
		else:
			t = Transform2D(0, Vector2.ZERO, 0, Vector2(-100, -100))
		buf.append_array([t.x.x, t.y.x, 0, t.origin.x, t.x.y, t.y.y, 0, t.origin.y, c, 0, 0, 0])
	RenderingServer.multimesh_set_buffer(mm, buf)
	var rr := []; var tt := []
	for i in 4:
		if i < list.size(): rr.append(Vector4(list[i][0].x, list[i][0].y, list[i][0].x + list[i][1].x, list[i][0].y + list[i][1].y)); tt.append(list[i][2])
		else: rr.append(Vector4(0,0,0,0)); tt.append(0.0)
	get_meta("keep")[0].set_shader_parameter("rects", rr)
	get_meta("keep")[0].set_shader_parameter("tv", PackedFloat32Array(tt))
	vp.render_target_update_mode = SubViewport.UPDATE_ONCE
func dec(c: Color) -> int:
	return c.r8 * 65536 + c.g8 * 256 + c.b8
func _process(_d):
	step += 1
	if step == 3:
		vp.render_target_clear_mode = SubViewport.CLEAR_MODE_NEVER
	if step == 5:
		var img := vp.get_texture().get_image()
		print("after 1: ", dec(img.get_pixel(10,10)), " ", dec(img.get_pixel(2,2)), " fmt ", img.get_format())
		set_stamps([[Vector2(12,12), Vector2(16,16), 500.0], [Vector2(14,14), Vector2(4,4), 7000001.0]])
	if step == 10:
		var img := vp.get_texture().get_image()
		print("after 2: (10,10)=", dec(img.get_pixel(10,10)), " (20,20)=", dec(img.get_pixel(20,20)), " (26,26)=", dec(img.get_pixel(26,26)), " (15,15)=", dec(img.get_pixel(15,15)), " (2,2)=", dec(img.get_pixel(2,2)))
		quit()
