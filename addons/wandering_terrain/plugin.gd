@tool
extends EditorPlugin
## Editor side of Wandering Terrain. The classes themselves come from the GDExtension
## (wandering_terrain.gdextension) and work without enabling this plugin.


func _enter_tree() -> void:
	pass


func _exit_tree() -> void:
	pass
